import { type SparseRows, transpose } from "../../../workers/training/als.js";
import { ITEM_ITEM, USER_PAIRS_MAX_ITEMS, type ItemItemParams } from "../../../workers/training/itemItem.js";
import type { ItemItem } from "../../../workers/model/itemItem.js";
import { END, NEIGHBOURS_PER_ITEM, slotOf, TABLE_MAX_ITEMS, type NeighbourTable } from "../../../workers/model/neighbourSlots.js";
import { TopK } from "../../../workers/model/topK.js";

/**
 * The item-item fit as it was before its selection was rewritten (commit 7b1a1f1), kept only so that
 * `npm run bench:item-item-fit` can time it beside the current one on the same data in the same run.
 */
export function fitItemItemBefore(x: SparseRows, params: ItemItemParams = ITEM_ITEM): { rows: ItemItem; similar: NeighbourTable | undefined } {
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
    rows: { items: n, queryMax: 1_024, rowStart, neighbours: neighbours.slice(0, filled), weights: weights.slice(0, filled) },
    similar: slots && { perItem, slots },
  };
}

function grown<T extends Int32Array | Float32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
