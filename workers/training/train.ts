import { trainAls, type AlsParams, type SparseRows } from "./als.js";
import { buildIvf } from "./ivf.js";
import { gram } from "./linalg.js";
import type { Model } from "./model.js";

/** Below this many items a query scores every item; above, it probes the IVF cells. */
export const EXHAUSTIVE_MAX_ITEMS = 5_000;

/** Trains the factors and derives what serving needs (unit vectors, Gram matrix, IVF cells). */
export function trainModel(matrix: SparseRows, userVersions: Int32Array, params: AlsParams, progress?: (it: number) => void): Model {
  const started = performance.now();
  const { userVectors, itemVectors } = trainAls(matrix, params, progress);
  const f = params.factors;
  const itemUnit = unitVectors(itemVectors, matrix.cols, f, matrix);
  return {
    params,
    itemCount: matrix.cols,
    itemVectors,
    itemUnit,
    userCount: matrix.rows,
    userVectors,
    userVersions,
    itemGram: gram(itemVectors, matrix.cols, f),
    ivf: matrix.cols > EXHAUSTIVE_MAX_ITEMS ? buildIvf(itemUnit, matrix.cols, f, params.seed) : undefined,
    trainedAt: Date.now(),
    trainingMs: performance.now() - started,
  };
}

/** Unit-length copies; an item nobody interacted with keeps a zero vector (it has no learned position). */
function unitVectors(v: Float32Array, n: number, f: number, matrix: SparseRows): Float32Array {
  const seen = new Uint8Array(n);
  for (let j = 0; j < matrix.indptr[matrix.rows]!; j++) seen[matrix.indices[j]!] = 1;
  const out = new Float32Array(n * f);
  for (let i = 0; i < n; i++) {
    if (!seen[i]) continue;
    let norm = 0;
    for (let k = 0; k < f; k++) norm += v[i * f + k]! ** 2;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    for (let k = 0; k < f; k++) out[i * f + k] = v[i * f + k]! / norm;
  }
  return out;
}
