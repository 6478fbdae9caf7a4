import type { Ivf } from "../model/ivf.js";
import { codeDot, rowDot } from "../model/linalg.js";
import { hasVectors, type Model } from "../model/model.js";
import { TopK } from "../model/topK.js";

/** Enough cells to find nearly all of what an exhaustive search finds (docs/recommender.md gives the recall). */
const FIRST_PROBES = 4;

export interface VectorSearch {
  /** Score by cosine (item similarity) rather than the raw dot product (a user's taste). */
  cosine: boolean;
  /** IVF cells probed first; the probe widens fourfold until `want` items pass. */
  firstProbes?: number;
  /**
   * An item whose own cell is scanned first, without scoring the centroids: its nearest neighbours live there.
   * Other cells are probed only when that cell yields fewer than `want` items.
   */
  near?: number;
}

/**
 * The `want` items whose vectors score highest against q, among those `accept` lets through. Small catalogs are
 * scanned whole; large ones probe the IVF cells nearest to q, each one sequential run of rows.
 */
export function searchVectors(
  model: Model,
  q: Float32Array | Float64Array,
  want: number,
  accept: (item: number) => boolean,
  how: VectorSearch,
): TopK {
  const f = model.params.factors;
  const top = new TopK(want);
  if (!hasVectors(model)) return top;
  const query = queryOf(q);
  const ivf = model.ivf;
  if (!ivf) {
    scanRows(model, query, 0, model.itemCount, top, accept, how.cosine);
    return top;
  }
  const home = how.near === undefined ? -1 : cellOfRow(ivf, model.rowOf[how.near]!);
  if (home >= 0) {
    scanRows(model, query, ivf.offsets[home]!, ivf.offsets[home + 1]!, top, accept, how.cosine);
    if (top.size >= want) return top;
  }
  let probes = Math.min(how.firstProbes ?? FIRST_PROBES, ivf.cells);
  let scanned = 0;
  for (;;) {
    const cells = bestCells(ivf, query, f, probes);
    for (; scanned < cells.length; scanned++) {
      const c = cells[scanned]!;
      if (c !== home) scanRows(model, query, ivf.offsets[c]!, ivf.offsets[c + 1]!, top, accept, how.cosine);
    }
    if (top.size >= want || probes === ivf.cells) break;
    probes = Math.min(probes * 4, ivf.cells);
  }
  return top;
}

/** The query of the search under way, in a buffer the thread reuses (it searches once at a time). */
let queryBuffer = new Float64Array(0);

/** q as a Float64Array: one element type keeps the scoring loop monomorphic (it runs thousands of times per request). */
function queryOf(q: Float32Array | Float64Array): Float64Array {
  if (queryBuffer.length !== q.length) queryBuffer = new Float64Array(q.length);
  queryBuffer.set(q);
  return queryBuffer;
}

/** The cell whose rows include `row` (binary search of the offsets), or -1 for a row in no cell. */
function cellOfRow(ivf: Ivf, row: number): number {
  if (row < 0 || row >= ivf.offsets[ivf.cells]!) return -1;
  let lo = 0;
  let hi = ivf.cells - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ivf.offsets[mid]! <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Kept for the swap's order of work: a new model's search needs nothing readied now that rows are scanned where
 * they are, but the event loop still gets a turn between the model's arrival and its swap, so that the requests
 * that waited meanwhile are answered by the old model.
 */
export async function prepareSearch(_model: Model): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Offers rows [from, to) to `top`, each scored by its int8 codes against q, times its scale. */
function scanRows(model: Model, q: Float64Array, from: number, to: number, top: TopK, accept: (item: number) => boolean, cosine: boolean): void {
  const scales = cosine ? model.cosineScales : model.itemScales;
  const f = model.params.factors;
  const codes = model.itemCodes;
  const itemOfRow = model.itemOfRow;
  for (let row = from; row < to; row++) {
    const score = codeDot(codes, row * f, q, f) * scales[row]!;
    const item = itemOfRow[row]!;
    if (top.wouldTake(score, item) && accept(item)) top.take(item);
  }
}

/** The `probes` cells whose centroids score highest against q, best first (a heap, not a sort of every cell). */
function bestCells(ivf: Ivf, q: Float64Array, f: number, probes: number): Int32Array {
  const top = new TopK(probes);
  for (let c = 0; c < ivf.cells; c++) {
    const s = rowDot(ivf.centroids, c * f, q, f);
    if (top.wouldTake(s, c)) top.take(c);
  }
  return top.sorted().items;
}

/** Item i's vector scaled to unit length, or undefined when the model has none for it (new, or never interacted with). */
export function unitVector(model: Model, item: number): Float64Array | undefined {
  if (item < 0 || item >= model.itemCount || !hasVectors(model)) return undefined;
  const row = model.rowOf[item]!;
  const scale = model.cosineScales[row]!;
  if (scale === 0) return undefined;
  const f = model.params.factors;
  const out = new Float64Array(f);
  for (let k = 0; k < f; k++) out[k] = model.itemCodes[row * f + k]! * scale;
  return out;
}
