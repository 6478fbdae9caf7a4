// Fitting the item-item rows and the neighbour lists made from them: the rows, and how a query is scored by them, are workers/model/itemItem.ts.
import type { SparseRows } from "./als.js";
import { transpose } from "./als.js";
import { QUERY_MAX_ITEMS, type ItemItem } from "../model/itemItem.js";
import { END, NEIGHBOURS_PER_ITEM, slotOf, TABLE_MAX_ITEMS, type NeighbourTable } from "../model/neighbourSlots.js";

export interface ItemItemParams {
  /** Exponent of the query item's degree: how much a rare item of the user's speaks above a common one. */
  beta: number;
  /** Exponent of the shared user's degree: how much a pair seen in a short record counts above a long one. */
  gamma: number;
  /** Exponent of the candidate's degree: how far popular candidates are held back. */
  delta: number;
  /** Neighbours kept per item. */
  rowMax: number;
}

export const ITEM_ITEM: ItemItemParams = { beta: 1, gamma: 1, delta: 0.1, rowMax: 200 };

/**
 * Past this many items a user's pairs are counted through an evenly spaced sample of them (weighted by the user's
 * whole degree), so that one record of thousands of items costs a million steps, not its square.
 */
export const USER_PAIRS_MAX_ITEMS = 1_000;

/**
 * Fits the rows from the binary pattern of `x` (users × items; any positive value is one interaction), and from
 * them the lists that `similar` and `because-you-viewed` read (undefined above TABLE_MAX_ITEMS, as
 * neighbourTable's): each item's first NEIGHBOURS_PER_ITEM neighbours, each weighed against the first (1), so a
 * list says how close a neighbour is relative to the item's closest. Ranked by the same row, `similar` of an
 * item is `personalized` of a user who has only that item.
 *
 * The cost is Σ_u d_u² additions (each user's pairs, through at most USER_PAIRS_MAX_ITEMS of their items) and one
 * look at every (item, co-occurring item) pair to select the rows: hundreds of millions of each on a large
 * organisation (docs/recommender.md). So the selection keeps its threshold in locals and skips a
 * candidate with one comparison, one heap serves every item, and the sampled users' items are laid out once.
 */
export function fitItemItem(
  x: SparseRows,
  params: ItemItemParams = ITEM_ITEM,
  /** Its queries' length: QUERY_MAX_ITEMS, or the training set's rowMax when that is shorter. */
  queryMax = QUERY_MAX_ITEMS,
): { rows: ItemItem; similar: NeighbourTable | undefined } {
  const n = x.cols;
  const byItem = transpose(x);
  const itemDegree = new Float64Array(n);
  for (let i = 0; i < n; i++) itemDegree[i] = byItem.indptr[i + 1]! - byItem.indptr[i]!;
  const { userWeight, pairStart, pairItems } = pairedItems(x, params.gamma);
  const targetScale = Float64Array.from(itemDegree, (d) => (d === 0 ? 0 : d ** -params.delta));
  const sums = new Float64Array(n);
  const touched = new Int32Array(n);
  const k = params.rowMax;
  const heap = { scores: new Float64Array(k), items: new Int32Array(k) };
  const rowScores = new Float64Array(k);
  const perItem = NEIGHBOURS_PER_ITEM;
  const slots = n <= TABLE_MAX_ITEMS ? new Uint32Array(n * perItem).fill(END) : undefined;
  const rowStart = new Int32Array(n + 1);
  let neighbours = new Int32Array(Math.min(n * k, 1 << 20));
  let weights = new Float32Array(neighbours.length);
  let filled = 0;
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (let a = byItem.indptr[i]!, end = byItem.indptr[i + 1]!; a < end; a++) {
      const u = byItem.indices[a]!;
      const w = userWeight[u]!;
      for (let b = pairStart[u]!, to = pairStart[u + 1]!; b < to; b++) {
        const j = pairItems[b]!;
        const before = sums[j]!;
        if (before === 0) touched[count++] = j;
        sums[j] = before + w;
      }
    }
    const size = selectBest(heap, k, i, touched, count, sums, targetScale);
    if (filled + size > neighbours.length) {
      const grownSize = Math.min(n * k, Math.max(2 * neighbours.length, filled + size));
      neighbours = grown(neighbours, new Int32Array(grownSize));
      weights = grown(weights, new Float32Array(grownSize));
    }
    // Popped worst first from the heap, so written from the row's end: the row reads best first.
    const sourceScale = itemDegree[i]! === 0 ? 0 : itemDegree[i]! ** -params.beta;
    for (let m = size; m > 0; m--) {
      neighbours[filled + m - 1] = heap.items[0]!;
      rowScores[m - 1] = heap.scores[0]!;
      weights[filled + m - 1] = heap.scores[0]! * sourceScale;
      heap.scores[0] = heap.scores[m - 1]!;
      heap.items[0] = heap.items[m - 1]!;
      sink(heap.scores, heap.items, 0, m - 1);
    }
    if (slots)
      for (let q = 0; q < Math.min(perItem, size); q++) slots[i * perItem + q] = slotOf(neighbours[filled + q]!, rowScores[q]! / rowScores[0]!);
    filled += size;
    rowStart[i + 1] = filled;
  }
  return {
    rows: { items: n, queryMax, rowStart, neighbours: neighbours.slice(0, filled), weights: weights.slice(0, filled) },
    similar: slots && { perItem, slots },
  };
}

/**
 * Each user's weight d_u^−γ and the items their pairs are counted through, one after another: all of them, or
 * past USER_PAIRS_MAX_ITEMS an evenly spaced sample (weighted by the user's whole degree), so that one record of
 * thousands of items costs a million steps, not its square.
 */
function pairedItems(x: SparseRows, gamma: number): { userWeight: Float64Array; pairStart: Int32Array; pairItems: Int32Array } {
  const userWeight = new Float64Array(x.rows);
  const pairStart = new Int32Array(x.rows + 1);
  for (let u = 0; u < x.rows; u++) {
    const d = x.indptr[u + 1]! - x.indptr[u]!;
    userWeight[u] = d === 0 ? 0 : d ** -gamma;
    pairStart[u + 1] = pairStart[u]! + Math.min(d, USER_PAIRS_MAX_ITEMS);
  }
  const pairItems = new Int32Array(pairStart[x.rows]!);
  for (let u = 0; u < x.rows; u++) {
    const from = x.indptr[u]!;
    const d = x.indptr[u + 1]! - from;
    const at = pairStart[u]!;
    const taken = pairStart[u + 1]! - at;
    if (taken === d) pairItems.set(x.indices.subarray(from, from + d), at);
    else for (let s = 0; s < taken; s++) pairItems[at + s] = x.indices[from + Math.floor((s * d) / taken)]!;
  }
  return { userWeight, pairStart, pairItems };
}

/**
 * Leaves in `heap` (a min-heap: the worst kept pair at its root) the k best of the touched items other than i by
 * sums[j]·scale[j], ties to the lower item (as TopK), zeroing `sums` where it read them; returns how many it kept.
 */
function selectBest(
  heap: { scores: Float64Array; items: Int32Array },
  k: number,
  i: number,
  touched: Int32Array,
  count: number,
  sums: Float64Array,
  scale: Float64Array,
): number {
  const { scores, items } = heap;
  let size = 0;
  let worstScore = -Infinity;
  let worstItem = -1;
  for (let t = 0; t < count; t++) {
    const j = touched[t]!;
    const s = sums[j]! * scale[j]!;
    sums[j] = 0;
    if (j === i || k === 0) continue;
    if (size < k) {
      scores[size] = s;
      items[size++] = j;
      if (size === k) {
        for (let h = (k >> 1) - 1; h >= 0; h--) sink(scores, items, h, k);
        worstScore = scores[0]!;
        worstItem = items[0]!;
      }
      continue;
    }
    if (s < worstScore || (s === worstScore && j > worstItem)) continue;
    scores[0] = s;
    items[0] = j;
    sink(scores, items, 0, k);
    worstScore = scores[0]!;
    worstItem = items[0]!;
  }
  if (size < k) for (let h = (size >> 1) - 1; h >= 0; h--) sink(scores, items, h, size);
  return size;
}

/** Sinks position h of a min-heap of `size` pairs (the root: the lowest score, of those the highest item). */
function sink(scores: Float64Array, items: Int32Array, h: number, size: number): void {
  const s = scores[h]!;
  const it = items[h]!;
  for (;;) {
    let c = 2 * h + 1;
    if (c >= size) break;
    if (c + 1 < size && (scores[c + 1]! < scores[c]! || (scores[c + 1] === scores[c] && items[c + 1]! > items[c]!))) c++;
    if (s < scores[c]! || (s === scores[c] && it > items[c]!)) break;
    scores[h] = scores[c]!;
    items[h] = items[c]!;
    h = c;
  }
  scores[h] = s;
  items[h] = it;
}

function grown<T extends Int32Array | Float32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
