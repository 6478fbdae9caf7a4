import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import type { AlsParams } from "../../src/wire/als.js";
import type { SparseRows } from "./als.js";
import { closedFormBuffers } from "./closedForm.js";
import type { Model } from "./model.js";
import { trainModel } from "./train.js";

/** A training job: the recommender thread hands over the matrix (moved) and gets a model back (moved). */
export interface TrainJob {
  matrix: SparseRows;
  userVersions: Int32Array;
  params: AlsParams;
}

/** Linux keeps nice values per thread: training is background work and yields the cores to serving. */
const TRAINING_NICENESS = 19;
setPriority(TRAINING_NICENESS);

parentPort!.on("message", (job: TrainJob) => {
  const model: Model = trainModel(job.matrix, job.userVersions, job.params);
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
  buffers.push(...closedFormBuffers(model.closedForm));
  parentPort!.postMessage(model, buffers as ArrayBuffer[]);
});
