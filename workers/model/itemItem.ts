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
/**
 * A query reads at most this many of the user's items (their latest), so that its cost is bounded by
 * QUERY_MAX_ITEMS rows whatever the user's record holds.
 */
export const QUERY_MAX_ITEMS = 1_024;

export interface ItemItem {
  items: number;
  /**
   * A user's query reads their latest this many items: QUERY_MAX_ITEMS, or fewer when the training budget gave
   * each row fewer (TrainingSet.rowMax), so that a query scores as training did for the kept lists.
   */
  queryMax: number;
  /** Item i's neighbours are neighbours[rowStart[i] .. rowStart[i+1]), best first, with their S_ij in weights. */
  rowStart: Int32Array;
  neighbours: Int32Array;
  weights: Float32Array;
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

/**
 * itemItemScores for the items `wanted` holds alone (a caller's few hundred `candidates`): every row is still
 * read, but only those items' sums are written, in the same order, so each equals the whole query's. The writes
 * are what a whole query pays for (a row's entries land all over a catalog-sized array); reading a row and
 * testing a small set costs a fraction of that. The caller reads the wanted items' scores and zeroes them again.
 */
export function itemItemScoresAmong(
  model: ItemItem,
  items: ArrayLike<number>,
  weights: ArrayLike<number>,
  wanted: Uint8Array,
  scores: Float64Array,
): void {
  const { rowStart, neighbours, weights: w } = model;
  for (let q = 0; q < items.length; q++) {
    const i = items[q]!;
    if (i >= model.items) continue;
    const weight = weights[q]!;
    for (let a = rowStart[i]!, end = rowStart[i + 1]!; a < end; a++) {
      const j = neighbours[a]!;
      if (wanted[j] === 1) scores[j] = scores[j]! + weight * w[a]!;
    }
  }
}
