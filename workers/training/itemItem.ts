import type { SparseRows } from "./als.js";
import { transpose } from "./als.js";
import { TopK } from "../vectors/topK.js";
import { END, NEIGHBOURS_PER_ITEM, slotOf, TABLE_MAX_ITEMS, type NeighbourTable } from "./neighbourSlots.js";

/**
 * Normalised item-item co-occurrence, the model `personalized` ranks by where EASE's closed form does not fit.
 * It is the linear filter of GF-CF (Shen et al., "How Powerful is Graph Convolution for Recommendation?",
 * CIKM 2021) with its degree exponents set apart, as LinkProp (Fu et al., 2022) does:
 *
 *   S_ij = d_i^−β · d_j^−δ · Σ_u x_ui·x_uj·d_u^−γ,   score_j = Σ_{i in the user's items} w_i·S_ij
 *
 * (d: how many users an item has, or how many items a user has; GF-CF's R̃ᵀR̃ is β = δ = ½, γ = 1). Each item keeps
 * only its ROW_MAX best S_ij, so a query reads |query| short rows instead of scoring every item: the candidates of
 * a ranking are found by the rows, which is the search. The fit is one pass over the users of each item, costing
 * Σ_u d_u² multiply-adds (a user's pairs through at most USER_PAIRS_MAX_ITEMS of their items).
 */
export interface ItemItem {
  items: number;
  /** Item i's neighbours are neighbours[rowStart[i] .. rowStart[i+1]), best first, with their S_ij in weights. */
  rowStart: Int32Array;
  neighbours: Int32Array;
  weights: Float32Array;
}

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
 */
export function fitItemItem(x: SparseRows, params: ItemItemParams = ITEM_ITEM): { rows: ItemItem; similar: NeighbourTable | undefined } {
  const n = x.cols;
  const byItem = transpose(x);
  const itemDegree = new Float64Array(n);
  for (let i = 0; i < n; i++) itemDegree[i] = byItem.indptr[i + 1]! - byItem.indptr[i]!;
  const userWeight = new Float64Array(x.rows);
  const stride = new Float64Array(x.rows);
  for (let u = 0; u < x.rows; u++) {
    const d = x.indptr[u + 1]! - x.indptr[u]!;
    userWeight[u] = d === 0 ? 0 : d ** -params.gamma;
    stride[u] = d > USER_PAIRS_MAX_ITEMS ? d / USER_PAIRS_MAX_ITEMS : 1;
  }
  const targetScale = Float64Array.from(itemDegree, (d) => (d === 0 ? 0 : d ** -params.delta));
  const sums = new Float64Array(n);
  const perItem = NEIGHBOURS_PER_ITEM;
  const slots = n <= TABLE_MAX_ITEMS ? new Uint32Array(n * perItem).fill(END) : undefined;
  const touched = new Int32Array(n);
  const rowStart = new Int32Array(n + 1);
  let neighbours = new Int32Array(Math.min(n * params.rowMax, 1 << 20));
  let weights = new Float32Array(neighbours.length);
  let filled = 0;
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (let a = byItem.indptr[i]!; a < byItem.indptr[i + 1]!; a++) {
      const u = byItem.indices[a]!;
      const w = userWeight[u]!;
      const from = x.indptr[u]!;
      const to = x.indptr[u + 1]!;
      if (stride[u] === 1) {
        for (let b = from; b < to; b++) {
          const j = x.indices[b]!;
          if (sums[j] === 0) touched[count++] = j;
          sums[j]! += w;
        }
        continue;
      }
      for (let s = 0; s < to - from; s += stride[u]!) {
        const j = x.indices[from + Math.floor(s)]!;
        if (sums[j] === 0) touched[count++] = j;
        sums[j]! += w;
      }
    }
    const top = new TopK(params.rowMax);
    for (let t = 0; t < count; t++) {
      const j = touched[t]!;
      const s = sums[j]! * targetScale[j]!;
      sums[j] = 0;
      if (j !== i && top.wouldTake(s, j)) top.take(j);
    }
    const best = top.sorted();
    if (slots) {
      const listed = Math.min(perItem, best.items.length);
      for (let k = 0; k < listed; k++) slots[i * perItem + k] = slotOf(best.items[k]!, best.scores[k]! / best.scores[0]!);
    }
    if (filled + best.items.length > neighbours.length) {
      const size = Math.min(n * params.rowMax, Math.max(2 * neighbours.length, filled + best.items.length));
      neighbours = grown(neighbours, new Int32Array(size));
      weights = grown(weights, new Float32Array(size));
    }
    const sourceScale = itemDegree[i]! === 0 ? 0 : itemDegree[i]! ** -params.beta;
    for (let k = 0; k < best.items.length; k++) {
      neighbours[filled] = best.items[k]!;
      weights[filled++] = best.scores[k]! * sourceScale;
    }
    rowStart[i + 1] = filled;
  }
  return {
    rows: { items: n, rowStart, neighbours: neighbours.slice(0, filled), weights: weights.slice(0, filled) },
    similar: slots && { perItem, slots },
  };
}

function grown<T extends Int32Array | Float32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/** The buffers of the rows, to move them between threads instead of copying. */
export function itemItemBuffers(model: ItemItem | undefined): ArrayBufferLike[] {
  return model ? [model.rowStart.buffer, model.neighbours.buffer, model.weights.buffer] : [];
}

/**
 * Accumulates a query's scores (items with weights, e.g. a user's record weighted by recency) into `scores`
 * (zero where untouched), listing each item it touches once in `touched`; returns how many. The caller reads the
 * touched items and zeroes them again, so a query costs its rows' length, not the catalog's.
 */
export function itemItemScores(
  model: ItemItem,
  items: ArrayLike<number>,
  weights: ArrayLike<number>,
  scores: Float64Array,
  touched: Int32Array,
): number {
  let count = 0;
  const { rowStart, neighbours, weights: w } = model;
  for (let q = 0; q < items.length; q++) {
    const i = items[q]!;
    if (i >= model.items) continue;
    const weight = weights[q]!;
    for (let a = rowStart[i]!, end = rowStart[i + 1]!; a < end; a++) {
      const j = neighbours[a]!;
      const before = scores[j]!;
      if (before === 0) touched[count++] = j;
      scores[j] = before + weight * w[a]!;
    }
  }
  return count;
}
