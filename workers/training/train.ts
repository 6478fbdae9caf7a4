import { trainAls, type SparseRows } from "./als.js";
import type { AlsParams } from "../../src/wire/als.js";
import { binaryPattern, closedFormFits, trainClosedForm } from "./ease.js";
import { fitItemItem } from "./itemItem.js";
import { QUERY_MAX_ITEMS } from "../model/itemItem.js";
import { buildIvf } from "./ivf.js";
import { gram } from "../model/linalg.js";
import type { Model } from "../model/model.js";
import { coOccurringNeighbours } from "./neighbours.js";
import { fitUserTop } from "./userTop.js";

/**
 * Below this many items a query scores every item; above, it probes the IVF cells. Cells are clustered by direction,
 * while personalized ranks by dot product, so probing costs accuracy (docs/recommender.md, "Quality"), and a
 * scan of this many rows is still cheap.
 */
export const EXHAUSTIVE_MAX_ITEMS = 20_000;

/**
 * The organisation's model. Where EASE's closed form fits: EASE for `personalized`, and ALS factors for the rest
 * (search order, int8 codes, Gram matrix, IVF cells, neighbour lists: co-occurring items by cosine of the vectors). Beyond: the
 * item-item model and its similarity lists, without factors (docs/recommender.md, Quality, says why).
 */
export function trainModel(
  matrix: SparseRows,
  userVersions: Int32Array,
  params: AlsParams,
  progress?: (it: number) => void,
  /** The training set's recency codes: with them, an item-item model keeps each user's best items (userTop.ts). */
  recency?: Uint16Array,
  /** The training set's rowMax: an item-item model's queries read no more of a user's items than its rows held. */
  rowMax = Infinity,
): Model {
  const started = performance.now();
  const binary = binaryPattern(matrix);
  if (!closedFormFits(binary.rows, binary.cols))
    return itemItemModel(binary, matrix, userVersions, params, started, recency, Math.min(QUERY_MAX_ITEMS, rowMax));
  return trainFactorModel(matrix, userVersions, params, progress, started);
}

/** The model of ALS factors (and EASE, where its closed form fits), whatever the organisation's size. */
export function trainFactorModel(
  matrix: SparseRows,
  userVersions: Int32Array,
  params: AlsParams,
  progress?: (it: number) => void,
  started = performance.now(),
): Model {
  const { userVectors, itemVectors } = trainAls(matrix, params, progress);
  const f = params.factors;
  const n = matrix.cols;
  const inverseNorms = inverseNormsOf(itemVectors, n, f, matrix);
  const built = n > EXHAUSTIVE_MAX_ITEMS ? buildIvf(unitVectors(itemVectors, inverseNorms, n, f), n, f, params.seed) : undefined;
  const itemOfRow = searchOrder(n, built?.members);
  const rowOf = new Int32Array(n);
  itemOfRow.forEach((item, row) => (rowOf[item] = row));
  const model: Model = {
    params,
    itemCount: n,
    ...quantize(permuteRows(itemVectors, itemOfRow, f), permuteRows(inverseNorms, itemOfRow, 1), f),
    rowOf,
    itemOfRow,
    userCount: matrix.rows,
    userVectors,
    userVersions,
    itemGram: gram(itemVectors, n, f),
    ivf: built?.ivf,
    neighbours: undefined,
    closedForm: trainClosedForm(matrix, params.seed),
    itemItem: undefined,
    userTop: undefined,
    trainedAt: 0,
    trainingMs: 0,
  };
  model.neighbours = coOccurringNeighbours(model, fitItemItem(binaryPattern(matrix)).rows);
  model.trainedAt = Date.now();
  model.trainingMs = performance.now() - started;
  return model;
}

/**
 * A model of item-item rows and similarity lists only: its vector fields are empty (hasVectors is false), so
 * nothing searches or folds in vectors for it.
 */
function itemItemModel(
  binary: SparseRows,
  matrix: SparseRows,
  userVersions: Int32Array,
  params: AlsParams,
  started: number,
  recency: Uint16Array | undefined,
  queryMax: number,
): Model {
  const { rows, similar } = fitItemItem(binary, undefined, queryMax);
  return {
    params,
    itemCount: matrix.cols,
    itemCodes: new Int8Array(0),
    itemScales: new Float32Array(0),
    cosineScales: new Float32Array(0),
    rowOf: new Int32Array(0),
    itemOfRow: new Int32Array(0),
    userCount: matrix.rows,
    userVectors: new Float32Array(0),
    userVersions,
    itemGram: new Float64Array(0),
    ivf: undefined,
    neighbours: similar,
    closedForm: undefined,
    itemItem: rows,
    userTop: recency && fitUserTop(rows, matrix, recency, queryMax),
    trainedAt: Date.now(),
    trainingMs: performance.now() - started,
  };
}

/** 1/|v| per item; 0 for an item nobody interacted with (it has no learned position). */
function inverseNormsOf(v: Float32Array, n: number, f: number, matrix: SparseRows): Float32Array {
  const seen = new Uint8Array(n);
  for (let j = 0; j < matrix.indptr[matrix.rows]!; j++) seen[matrix.indices[j]!] = 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    if (!seen[i]) continue;
    let norm = 0;
    for (let k = 0; k < f; k++) norm += v[i * f + k]! ** 2;
    if (norm > 0) out[i] = 1 / Math.sqrt(norm);
  }
  return out;
}

/** Unit-length copies for clustering (zero where the inverse norm is 0); dropped once the cells are built. */
function unitVectors(v: Float32Array, inverseNorms: Float32Array, n: number, f: number): Float32Array {
  const out = new Float32Array(n * f);
  for (let i = 0; i < n; i++) for (let k = 0; k < f; k++) out[i * f + k] = v[i * f + k]! * inverseNorms[i]!;
  return out;
}

/** Rows in search order: the IVF cells' items cell by cell, then every item in no cell (or all items in id order). */
function searchOrder(n: number, members: Int32Array | undefined): Int32Array {
  if (!members) return Int32Array.from({ length: n }, (_, i) => i);
  const order = new Int32Array(n);
  order.set(members);
  const placed = new Uint8Array(n);
  for (const i of members) placed[i] = 1;
  let row = members.length;
  for (let i = 0; i < n; i++) if (!placed[i]) order[row++] = i;
  return order;
}

/**
 * Each row as int8 codes and one scale (its largest component maps to ±127): a quarter of the memory, and a
 * quarter of the bytes every search reads, for a relative error under 0.5% per component. `inverseNorms` says
 * which rows have a learned vector (0: none).
 */
function quantize(v: Float32Array, inverseNorms: Float32Array, f: number): Pick<Model, "itemCodes" | "itemScales" | "cosineScales"> {
  const rows = inverseNorms.length;
  const itemCodes = new Int8Array(rows * f);
  const itemScales = new Float32Array(rows);
  const cosineScales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let maxAbs = 0;
    for (let k = 0; k < f; k++) maxAbs = Math.max(maxAbs, Math.abs(v[r * f + k]!));
    if (maxAbs === 0) continue;
    const scale = maxAbs / 127;
    let squares = 0;
    for (let k = 0; k < f; k++) {
      const code = Math.round(v[r * f + k]! / scale);
      itemCodes[r * f + k] = code;
      squares += code * code;
    }
    itemScales[r] = scale;
    if (inverseNorms[r] !== 0) cosineScales[r] = 1 / Math.sqrt(squares);
  }
  return { itemCodes, itemScales, cosineScales };
}

function permuteRows(v: Float32Array, itemOfRow: Int32Array, width: number): Float32Array {
  const out = new Float32Array(itemOfRow.length * width);
  for (let row = 0; row < itemOfRow.length; row++) out.set(v.subarray(itemOfRow[row]! * width, itemOfRow[row]! * width + width), row * width);
  return out;
}
