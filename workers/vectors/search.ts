import type { Ivf } from "../training/ivf.js";
import { codeDot, rowDot } from "../training/linalg.js";
import type { Model } from "../training/model.js";
import { SimdScorer } from "./simdScores.js";
import { TopK } from "./topK.js";

/** Against exhaustive search on 100,000 items: 4 cells find 99.6% of the top 100 by cosine and all of a user's top 21. */
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
  const query = queryOf(q);
  const simd = scorersOf(model);
  simd?.items.setQuery(query);
  if (simd) simd.cells?.setQueryOf(simd.items);
  const top = new TopK(want);
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
    const cells = bestCells(ivf, query, f, probes, simd?.cells);
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

/** A model's SIMD scorers: its item codes (moved into wasm memory on first use), and its IVF centroids as int8. */
interface Scorers {
  items: SimdScorer;
  cells: SimdScorer | undefined;
}

const scorers = new WeakMap<Model, Scorers | null>();

function scorersOf(model: Model): Scorers | undefined {
  let s = scorers.get(model);
  if (s === undefined) {
    const items = SimdScorer.adopt(model);
    s = items ? { items, cells: model.ivf ? quantizeCells(model.ivf, model.params.factors) : undefined } : null;
    scorers.set(model, s);
  }
  return s ?? undefined;
}

/**
 * Readies a model's search before it serves (its item codes moved into the scan's wasm memory, its IVF centroids
 * quantized), then gives the event loop a turn so that the requests that waited are answered by the old model.
 * Left to a new model's first request, this was part of a 30-80 ms stall right after the swap. It still takes
 * the shard 27-33 ms on the benchmark organisation, mostly the young-generation collections V8 starts for
 * "external memory pressure" as the arriving model's arrays (about 65 MB) and the new wasm memory are counted;
 * the copy itself is 3 ms.
 */
export async function prepareSearch(model: Model): Promise<void> {
  scorersOf(model);
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Centroids as int8 codes with a scale each: choosing the cells to probe needs their order, not exact scores. */
function quantizeCells(ivf: Ivf, f: number): SimdScorer | undefined {
  const codes = new Int8Array(ivf.cells * f);
  const scales = new Float32Array(ivf.cells);
  for (let c = 0; c < ivf.cells; c++) {
    let max = 0;
    for (let k = 0; k < f; k++) max = Math.max(max, Math.abs(ivf.centroids[c * f + k]!));
    scales[c] = max / 127;
    for (let k = 0; k < f; k++) codes[c * f + k] = max === 0 ? 0 : Math.round((ivf.centroids[c * f + k]! / max) * 127);
  }
  return SimdScorer.over(codes, scales, f);
}

/**
 * Rows the SIMD scan takes per call: few while the top is filling (every row comes back then, and the
 * threshold should start rising soon), more once it is full (only rows that reach the threshold come back,
 * and a call costs about as much as scoring 30 rows).
 */
const FILL_CHUNK = 32;
const SCAN_CHUNK = 256;
const chunkAfter = (threshold: number) => (threshold === -Infinity ? FILL_CHUNK : SCAN_CHUNK);
/** Scale sets of the scorers (see SimdScorer.adopt and .over). */
const ITEM_SCALES = 0;
const COSINE_SCALES = 1;
const CELL_SCALES = 0;

/** Offers rows [from, to) to `top`, scored against the query set on the model's scorer (or q, without one). */
function scanRows(model: Model, q: Float64Array, from: number, to: number, top: TopK, accept: (item: number) => boolean, cosine: boolean): void {
  const scorer = scorersOf(model)?.items;
  if (scorer) {
    for (let at = from; at < to;) {
      const threshold = top.threshold();
      const end = Math.min(at + chunkAfter(threshold), to);
      const n = scorer.scan(at, end, cosine ? COSINE_SCALES : ITEM_SCALES, threshold);
      at = end;
      const { rows, scores } = scorer;
      for (let k = 0; k < n; k++) {
        const item = model.itemOfRow[rows[k]!]!;
        if (top.wouldTake(scores[k]!, item) && accept(item)) top.take(item);
      }
    }
    return;
  }
  const scales = cosine ? model.cosineScales : model.itemScales;
  const f = model.params.factors;
  const codes = model.itemCodes;
  for (let row = from; row < to; row++) {
    const score = codeDot(codes, row * f, q, f) * scales[row]!;
    const item = model.itemOfRow[row]!;
    if (top.wouldTake(score, item) && accept(item)) top.take(item);
  }
}

/** The `probes` cells whose centroids score highest against q, best first (a heap, not a sort of every cell). */
function bestCells(ivf: Ivf, q: Float64Array, f: number, probes: number, scorer: SimdScorer | undefined): Int32Array {
  const top = new TopK(probes);
  if (scorer) {
    for (let at = 0; at < ivf.cells;) {
      const threshold = top.threshold();
      const end = Math.min(at + chunkAfter(threshold), ivf.cells);
      const n = scorer.scan(at, end, CELL_SCALES, threshold);
      at = end;
      for (let k = 0; k < n; k++) if (top.wouldTake(scorer.scores[k]!, scorer.rows[k]!)) top.take(scorer.rows[k]!);
    }
    return top.sorted().items;
  }
  for (let c = 0; c < ivf.cells; c++) {
    const s = rowDot(ivf.centroids, c * f, q, f);
    if (top.wouldTake(s, c)) top.take(c);
  }
  return top.sorted().items;
}

/** Item i's vector scaled to unit length, or undefined when the model has none for it (new, or never interacted with). */
export function unitVector(model: Model, item: number): Float64Array | undefined {
  if (item < 0 || item >= model.itemCount) return undefined;
  const row = model.rowOf[item]!;
  const scale = model.cosineScales[row]!;
  if (scale === 0) return undefined;
  const f = model.params.factors;
  const out = new Float64Array(f);
  for (let k = 0; k < f; k++) out[k] = model.itemCodes[row * f + k]! * scale;
  return out;
}
