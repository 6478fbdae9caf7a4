import type { SparseRows } from "./als.js";
import { transpose } from "./als.js";
import { TopK } from "../model/topK.js";

/**
 * The user-user term that the kept lists (userTop.ts) blend with the item-item score: the items of the user's
 * nearest users, each user weighed by how close they are.
 *
 *   sim(u, v) = d_v^−1 · Σ_{i in u's query} w_i · x_vi · d_i^−1,   uu_j = Σ_{v in u's k best} sim(u, v)^p · x_vj
 *
 * (d: how many users an item has, or how many items a user has; w_i the query's recency weight). Keeping only a
 * user's k nearest makes it something the item-item rows are not: summed over every user it would be a longer
 * walk on the same graph. On Gowalla it lifts NDCG@20 by about 0.001 (docs/recommender.md, Quality).
 *
 * Computed only at training, into the kept lists: a user whose history moved on is ranked by the item-item rows
 * alone, which need no user's neighbours at request time.
 */
export interface UserUserParams {
  /** The blend's share: (1 − weight)·item-item / its largest + weight·user-user / its largest. 0: no term. */
  weight: number;
  /** Nearest users kept per user. */
  neighbours: number;
  /** Power of each neighbour's similarity: below 1, nearer users count less above farther ones. */
  power: number;
  /**
   * Past this many users, an item's users are read through an evenly spaced sample of them (each weighing for
   * the ones left out), so that a popular item costs each of its users this many steps, not its whole count.
   */
  itemUsersMax: number;
}

export const USER_USER: UserUserParams = { weight: 0.3, neighbours: 100, power: 0.5, itemUsersMax: 1_000 };
export const NO_USER_USER: UserUserParams = { ...USER_USER, weight: 0 };

/**
 * The term's inputs, read from the training matrix (users × items, positive entries): each item's users
 * (sampled past itemUsersMax) and the weights of the formula above, with scratch space for one user at a time.
 */
export class UserUserTerm {
  private readonly userStart: Int32Array;
  private readonly users: Int32Array;
  private readonly itemWeight: Float64Array;
  private readonly userWeight: Float64Array;
  private readonly closeness: Float64Array;
  private readonly met: Int32Array;

  constructor(
    private readonly matrix: SparseRows,
    readonly params: UserUserParams,
  ) {
    const byItem = transpose(matrix);
    const n = matrix.cols;
    this.userStart = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) this.userStart[i + 1] = this.userStart[i]! + Math.min(byItem.indptr[i + 1]! - byItem.indptr[i]!, params.itemUsersMax);
    this.users = new Int32Array(this.userStart[n]!);
    this.itemWeight = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const from = byItem.indptr[i]!;
      const d = byItem.indptr[i + 1]! - from;
      const at = this.userStart[i]!;
      const taken = this.userStart[i + 1]! - at;
      // d_i^−1 for each of the d_i users, spread over the `taken` read: 1/taken each.
      this.itemWeight[i] = taken === 0 ? 0 : 1 / taken;
      if (taken === d) this.users.set(byItem.indices.subarray(from, from + d), at);
      else for (let s = 0; s < taken; s++) this.users[at + s] = byItem.indices[from + Math.floor((s * d) / taken)]!;
    }
    this.userWeight = new Float64Array(matrix.rows);
    for (let v = 0; v < matrix.rows; v++) {
      const d = matrix.indptr[v + 1]! - matrix.indptr[v]!;
      this.userWeight[v] = d === 0 ? 0 : 1 / d;
    }
    this.closeness = new Float64Array(matrix.rows);
    this.met = new Int32Array(matrix.rows);
  }

  /**
   * Accumulates user u's term for the query (items and weights) into `scores` (zero where untouched), listing
   * each item it touches once in `touched`; returns how many. The caller zeroes them again, as itemItemScores'.
   */
  scores(u: number, items: ArrayLike<number>, weights: ArrayLike<number>, scores: Float64Array, touched: Int32Array): number {
    const { userStart, users, itemWeight, userWeight, closeness, met, matrix, params } = this;
    let count = 0;
    let metCount = 0;
    for (let q = 0; q < items.length; q++) {
      const i = items[q]!;
      if (i >= matrix.cols) continue;
      const w = weights[q]! * itemWeight[i]!;
      for (let a = userStart[i]!, end = userStart[i + 1]!; a < end; a++) {
        const v = users[a]!;
        if (v === u) continue;
        const before = closeness[v]!;
        if (before === 0) met[metCount++] = v;
        closeness[v] = before + w;
      }
    }
    const nearest = new TopK(params.neighbours);
    for (let t = 0; t < metCount; t++) {
      const v = met[t]!;
      const s = closeness[v]! * userWeight[v]!;
      closeness[v] = 0;
      if (nearest.wouldTake(s, v)) nearest.take(v);
    }
    for (let k = 0; k < nearest.size; k++) {
      const v = nearest.item(k);
      const s = nearest.score(k) ** params.power;
      for (let b = matrix.indptr[v]!, end = matrix.indptr[v + 1]!; b < end; b++) {
        const j = matrix.indices[b]!;
        const before = scores[j]!;
        if (before === 0) touched[count++] = j;
        scores[j] = before + s;
      }
    }
    return count;
  }
}
