import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import type { AlsParams } from "../../src/wire/als.js";
import type { SparseRows } from "./als.js";
import { closedFormBuffers } from "../model/ease.js";
import { itemItemBuffers } from "../model/itemItem.js";
import { decodeModel, encodeModel } from "../model/modelBytes.js";
import type { Model } from "../model/model.js";
import { neighbourTable } from "./neighbours.js";
import { trainModel } from "./train.js";
import { translateModel } from "./translateModel.js";
import { userTopBuffers } from "../model/userTop.js";

/** A training job: the recommender thread hands over the matrix (moved) and gets a model back (moved). */
export interface TrainJob {
  kind: "train";
  matrix: SparseRows;
  userVersions: Int32Array;
  /** The training set's recency codes (trainingSet.ts), for the item-item model's per-user lists. */
  recency: Uint16Array;
  /** The training set's rowMax (trainingSet.ts). */
  rowMax: number;
  params: AlsParams;
  /** CLUSTER=1: the model is also wanted as bytes to store for the other processes, its items named so. */
  share: { names: string[]; interactions: number } | null;
}

/** A model another process stored, to number this process's way (`local`: training/translateModel.ts). */
export interface TranslateJob {
  kind: "translate";
  bytes: Uint8Array;
  local: Int32Array;
  users: number;
}

export interface TrainerAnswer {
  model: Model;
  /** The train job's model as bytes to store, when it asked for them. */
  stored: Uint8Array | null;
}

/** Linux keeps nice values per thread: training is background work and yields the cores to serving. */
const TRAINING_NICENESS = 19;
setPriority(TRAINING_NICENESS);

parentPort!.on("message", (job: TrainJob | TranslateJob) => {
  const answer = job.kind === "train" ? train(job) : translate(job);
  const buffers: ArrayBufferLike[] = modelBuffers(answer.model);
  if (answer.stored) buffers.push(answer.stored.buffer);
  parentPort!.postMessage(answer, buffers as ArrayBuffer[]);
});

function train(job: TrainJob): TrainerAnswer {
  const model = trainModel(job.matrix, job.userVersions, job.params, undefined, job.recency, job.rowMax);
  const stored = job.share && encodeModel({ ...model, ...job.share });
  return { model, stored };
}

/** The neighbour lists of a model of vectors are rebuilt here from the translated vectors, as training builds them. */
function translate(job: TranslateJob): TrainerAnswer {
  const model = translateModel(decodeModel(job.bytes), job.local, job.users);
  // Every model is stored with its lists now; one stored before they were (a model of vectors) rebuilds them here.
  model.neighbours ??= neighbourTable(model);
  return { model, stored: null };
}

/** The distinct buffers of a model's arrays, to move it to the recommender thread instead of copying it. */
function modelBuffers(model: Model): ArrayBufferLike[] {
  const arrays = [
    model.itemCodes,
    model.itemScales,
    model.cosineScales,
    model.rowOf,
    model.itemOfRow,
    model.userVectors,
    model.userVersions,
    model.itemGram,
  ];
  const buffers = arrays.map((a) => a.buffer);
  if (model.ivf) buffers.push(model.ivf.centroids.buffer, model.ivf.offsets.buffer);
  if (model.neighbours) buffers.push(model.neighbours.slots.buffer);
  buffers.push(...closedFormBuffers(model.closedForm), ...itemItemBuffers(model.itemItem), ...userTopBuffers(model.userTop));
  return [...new Set(buffers)];
}
