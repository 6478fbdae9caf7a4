import { bestCells } from "../training/ivf.js";
import type { Model } from "../training/model.js";
import { TopK } from "./topK.js";

const FIRST_PROBES = 8;

export interface VectorSearch {
  /** Score by cosine (item similarity) rather than the raw dot product (a user's taste). */
  cosine: boolean;
  /** IVF cells probed first; the probe widens fourfold until `want` items pass. */
  firstProbes?: number;
}

/**
 * The `want` items whose vectors score highest against q, among those `accept` lets through. Small catalogs are
 * scanned whole; large ones probe the IVF cells nearest to q, each one sequential run of rows.
 */
export function searchVectors(
  model: Model, q: Float32Array | Float64Array, want: number, accept: (item: number) => boolean, how: VectorSearch,
): TopK {
  const f = model.params.factors;
  // One element type for the query keeps the scoring loop monomorphic (it runs thousands of times per request).
  const query = Float64Array.from(q);
  const top = new TopK(want);
  const ivf = model.ivf;
  if (!ivf) {
    scanRows(model, query, 0, model.itemCount, top, accept, how.cosine);
    return top;
  }
  const order = bestCells(ivf, query, f, ivf.cells);
  let scanned = 0;
  for (let probes = how.firstProbes ?? FIRST_PROBES; scanned < order.length; probes *= 4) {
    for (; scanned < Math.min(probes, order.length); scanned++) {
      const c = order[scanned]!;
      scanRows(model, query, ivf.offsets[c]!, ivf.offsets[c + 1]!, top, accept, how.cosine);
    }
    if (top.size >= want) break;
  }
  return top;
}

function scanRows(model: Model, q: Float64Array, from: number, to: number, top: TopK, accept: (item: number) => boolean, cosine: boolean): void {
  const f = model.params.factors;
  const vectors = model.itemVectors;
  for (let row = from; row < to; row++) {
    const dotted = dot(vectors, row * f, q, f);
    const score = cosine ? dotted * model.inverseNorms[row]! : dotted;
    const item = model.itemOfRow[row]!;
    if (top.wouldTake(score, item) && accept(item)) top.offer(score, item);
  }
}

/** vectors[off .. off+f) · q, four running sums so the multiply-adds do not wait on each other. */
function dot(vectors: Float32Array, off: number, q: Float64Array, f: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < f; k += 4) {
    s0 += vectors[off + k]! * q[k]!;
    s1 += vectors[off + k + 1]! * q[k + 1]!;
    s2 += vectors[off + k + 2]! * q[k + 2]!;
    s3 += vectors[off + k + 3]! * q[k + 3]!;
  }
  for (; k < f; k++) s0 += vectors[off + k]! * q[k]!;
  return s0 + s1 + s2 + s3;
}

/** Item i's vector scaled to unit length, or undefined when the model has none for it (new, or never interacted with). */
export function unitVector(model: Model, item: number): Float64Array | undefined {
  if (item < 0 || item >= model.itemCount) return undefined;
  const row = model.rowOf[item]!;
  const scale = model.inverseNorms[row]!;
  if (scale === 0) return undefined;
  const f = model.params.factors;
  const out = new Float64Array(f);
  for (let k = 0; k < f; k++) out[k] = model.itemVectors[row * f + k]! * scale;
  return out;
}
