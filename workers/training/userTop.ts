// Making each user's kept list (workers/model/userTop.ts says what it is and when a request reads it).
import type { SparseRows } from "./als.js";
import { itemItemScores, type ItemItem } from "../model/itemItem.js";
import type { UserTop } from "../model/userTop.js";
import { recencyWeight } from "./query.js";
import { TopK } from "../model/topK.js";
import { USER_USER, UserUserTerm, type UserUserParams } from "./userUser.js";

/**
 * Items kept per user: the candidates merchandising rules re-rank (RULES_DEPTH, workers/strategies/rules/) and
 * those `diversity` weighs for a page of up to 23 (each place chooses among the three pages' worth after it),
 * so that neither needs a fresh sum of the user's rows; a plain page of 20 reads the first 21. A request that
 * needs more is summed afresh.
 */
export const USER_TOP_PER_USER = 96;
/**
 * At most this many kept items in all (8 bytes each: 64 MB); an organisation with more users keeps lists for
 * its first 83,333 users only, and the rest are summed afresh at each request.
 */
export const USER_TOP_MAX_ENTRIES = 8_000_000;

/**
 * The lists, from the training matrix (rows as RowReader reads them) and its recency codes. The user's own items
 * are left out (a request for `personalized` excludes them by default; one that does not is summed afresh), and
 * so are users with more than `maxQuery` items (their query reads only the latest of them). Each score is
 * (1 − a)·ii_j / max ii + a·uu_j / max uu over the user's candidates (a: `userUser.weight`), or the item-item
 * sum itself when a is 0.
 */
export function fitUserTop(
  model: ItemItem,
  matrix: SparseRows,
  recency: Uint16Array,
  maxQuery: number,
  perUser = USER_TOP_PER_USER,
  maxEntries = USER_TOP_MAX_ENTRIES,
  userUser: UserUserParams = USER_USER,
): UserTop {
  const users = Math.min(matrix.rows, Math.floor(maxEntries / perUser));
  const counts = new Int16Array(matrix.rows).fill(-1);
  const items = new Int32Array(users * perUser);
  const scores = new Float32Array(users * perUser);
  const sums = new Float64Array(model.items);
  const touched = new Int32Array(model.items);
  const own = new Uint8Array(model.items);
  const a = userUser.weight;
  const term = a > 0 ? new UserUserTerm(matrix, userUser) : undefined;
  const other = new Float64Array(term ? model.items : 0);
  const otherTouched = new Int32Array(term ? model.items : 0);
  const tailScales = new Float32Array(matrix.rows).fill(1);
  let weights = new Float64Array(256);
  for (let u = 0; u < users; u++) {
    const from = matrix.indptr[u]!;
    const to = matrix.indptr[u + 1]!;
    if (to === from || to - from > maxQuery) continue;
    if (weights.length < to - from) weights = new Float64Array(to - from);
    for (let k = from; k < to; k++) {
      weights[k - from] = recencyWeight(recency[k]!);
      if (matrix.indices[k]! < model.items) own[matrix.indices[k]!] = 1;
    }
    const query = matrix.indices.subarray(from, to);
    const count = itemItemScores(model, query, weights.subarray(0, to - from), sums, touched);
    const top = new TopK(perUser);
    if (term) {
      const otherCount = term.scores(u, query, weights.subarray(0, to - from), other, otherTouched);
      // An item only the item-item sum reaches scores scaleI·ii, below each of the perUser best by ii (whose
      // user-user part is ≥ 0): so those and the items the user-user term reaches are every candidate, and the long tail
      // of item-item sums is passed over once, as without the term.
      const byItemItem = new TopK(perUser);
      let maxI = 0;
      for (let t = 0; t < count; t++) {
        const j = touched[t]!;
        const s = sums[j]!;
        if (own[j] !== 0) continue;
        if (s > maxI) maxI = s;
        if (byItemItem.wouldTake(s, j)) byItemItem.take(j);
      }
      const scaleI = maxI > 0 ? (1 - a) / maxI : 0;
      const scaleU = a / largest(other, otherTouched, otherCount, own);
      tailScales[u] = scaleI;
      for (let k = 0; k < byItemItem.size; k++) {
        const j = byItemItem.item(k);
        const s = sums[j]! * scaleI;
        if (other[j] === 0 && top.wouldTake(s, j)) top.take(j);
      }
      for (let t = 0; t < otherCount; t++) {
        const j = otherTouched[t]!;
        const s = sums[j]! * scaleI + other[j]! * scaleU;
        other[j] = 0;
        if (own[j] === 0 && top.wouldTake(s, j)) top.take(j);
      }
      for (let t = 0; t < count; t++) sums[touched[t]!] = 0;
    } else
      for (let t = 0; t < count; t++) {
        const j = touched[t]!;
        const s = sums[j]!;
        sums[j] = 0;
        if (own[j] === 0 && top.wouldTake(s, j)) top.take(j);
      }
    for (const j of query) if (j < model.items) own[j] = 0;
    const best = top.sorted();
    items.set(best.items, u * perUser);
    scores.set(best.scores, u * perUser);
    counts[u] = best.items.length;
  }
  return { perUser, items, scores, counts, tailScales };
}

/** The largest of the scores listed in `touched`, the user's own items left out; Infinity when none (scales to 0). */
function largest(scores: Float64Array, touched: Int32Array, count: number, own: Uint8Array): number {
  let max = 0;
  for (let t = 0; t < count; t++) {
    const j = touched[t]!;
    if (own[j] === 0 && scores[j]! > max) max = scores[j]!;
  }
  return max > 0 ? max : Infinity;
}
