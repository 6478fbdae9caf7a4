import { ensureLength } from "../index/growable.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { SparseRows } from "./als.js";

/**
 * The user × item strength matrix the model learns from: each user's whole record (their history and the items
 * before it), weights summed per item (negative events subtract). Nothing fades with age here: a clock-based
 * fade left an organisation whose history is older than a few months with nothing to learn from, and on
 * MovieLens any fade in the fit cost accuracy on both protocols (docs/recommender.md, Quality). Recency enters
 * at query time instead (queryOf). Items and users keep the index's interned ids.
 */
export function trainingSet(index: OrgIndex): { matrix: SparseRows; userVersions: Int32Array } {
  const builder = new TrainingSetBuilder(index);
  while (builder.addUser());
  return builder.finish();
}

/**
 * Builds trainingSet() one user at a time, so that a caller may stop between users (the shard answers requests
 * in between: workers/recommender/trainingRows.ts). Each user's version is read with their row, so events applied
 * between two users are either in a user's row and version or in neither. Sums go through a dense per-item
 * accumulator (NaN while untouched) instead of a Map per user, which leaves no garbage behind.
 */
export class TrainingSetBuilder {
  private readonly users: number;
  private readonly indptr: Int32Array;
  private readonly userVersions: Int32Array;
  private indices = new Int32Array(1024);
  private values = new Float32Array(1024);
  private n = 0;
  private u = 0;
  private sums: Float64Array;
  private order = new Int32Array(256);

  constructor(private readonly index: OrgIndex) {
    this.users = index.people.ids.size;
    this.indptr = new Int32Array(this.users + 1);
    this.userVersions = new Int32Array(this.users);
    this.sums = new Float64Array(Math.max(1, index.catalog.size)).fill(NaN);
  }

  /** Adds the next user's row; false once every user is in. */
  addUser(): boolean {
    if (this.u === this.users) return false;
    const { people, catalog } = this.index;
    const u = this.u++;
    // Items interned since the start (events applied between users) widen the accumulator.
    const sums = (this.sums = ensureLength(this.sums, catalog.size, NaN));
    let touched = 0;
    const add = (item: number, weight: number) => {
      if (Number.isNaN(sums[item]!)) {
        this.order = ensureLength(this.order, touched + 1);
        this.order[touched++] = item;
        sums[item] = weight;
      } else sums[item]! += weight;
    };
    const e = people.earlier;
    for (let k = e.start(u), end = e.start(u) + e.size(u); k < end; k++) add(e.cols.key[k]!, e.cols.value[k]!);
    const h = people.history;
    for (let k = h.start(u), end = h.start(u) + h.size(u); k < end; k++) add(h.cols.key[k]!, h.cols.value[k]!);
    for (let t = 0; t < touched; t++) {
      const item = this.order[t]!;
      const strength = sums[item]!;
      sums[item] = NaN;
      if (strength <= 0) continue;
      this.indices = ensureLength(this.indices, this.n + 1);
      this.values = ensureLength(this.values, this.n + 1);
      this.indices[this.n] = item;
      this.values[this.n++] = strength;
    }
    this.indptr[u + 1] = this.n;
    this.userVersions[u] = people.version[u]!;
    return true;
  }

  finish(): { matrix: SparseRows; userVersions: Int32Array } {
    const { users, indptr, n } = this;
    return {
      matrix: { rows: users, cols: this.index.catalog.size, indptr, indices: this.indices.slice(0, n), values: this.values.slice(0, n) },
      userVersions: this.userVersions,
    };
  }
}

/** A user's current strengths per item, the same way (for fold-in at request time). */
export function userStrengths(index: OrgIndex, u: number): { items: number[]; strengths: number[] } {
  const perItem = sumStrengths(index, u, new Map());
  return { items: [...perItem.keys()], strengths: [...perItem.values()] };
}

/**
 * A user's positive items, latest last, each weighted 1 + RECENT_BOOST·2^(−r/RECENT_HALF_LIFE) where r counts the
 * distinct items they touched since (0: the latest): recency relative to the user's own activity, not to the
 * clock, so a user who comes back after a year is read by what they did last. A history whose events all bear one
 * time (a record loaded without times, such as a published split) has no order: all its items weigh as the latest,
 * where its arbitrary order would otherwise favour whichever items were listed last.
 */
export function queryOf(index: OrgIndex, u: number): { items: Int32Array; weights: Float64Array } {
  const touched = strengthsOf(index, u);
  const h = index.people.history;
  const { key, time } = h.cols;
  const start = h.start(u);
  const end = start + h.size(u);
  let ordered = false;
  for (let k = start + 1; k < end && !ordered; k++) ordered = time[k] !== time[start];
  // The latest items, newest first, each once: marked placed by setting its sum to NaN.
  let latest = 0;
  for (let k = end - 1; k >= start; k--) {
    const item = key[k]!;
    if (!(query.sums[item]! > 0)) continue;
    query.sums[item] = NaN;
    query.latest = ensureLength(query.latest, latest + 1);
    query.latest[latest++] = item;
  }
  let count = 0;
  for (let t = 0; t < touched; t++) if (query.sums[query.order[t]!]! > 0) count++;
  const items = new Int32Array(count + latest);
  const weights = new Float64Array(count + latest);
  let n = 0;
  for (let t = 0; t < touched; t++) {
    const item = query.order[t]!;
    if (query.sums[item]! > 0) {
      items[n] = item;
      weights[n++] = 1;
    }
    query.sums[item] = NaN;
  }
  for (let r = latest - 1; r >= 0; r--) {
    items[n] = query.latest[r]!;
    weights[n++] = 1 + RECENT_BOOST * 2 ** (-(ordered ? r : 0) / RECENT_HALF_LIFE);
  }
  return { items, weights };
}

/**
 * Scratch of queryOf (one thread ranks one request at a time): a dense per-item sum (NaN while untouched), the
 * items touched in first-touch order, and the latest items; no Map, Set or array is built per request.
 */
const query = { sums: new Float64Array(0), order: new Int32Array(256), latest: new Int32Array(256) };

/** Sums user u's strengths into query.sums (the items before their history, then it); returns how many items. */
function strengthsOf(index: OrgIndex, u: number): number {
  if (query.sums.length < index.catalog.size) query.sums = ensureLength(query.sums, index.catalog.size, NaN);
  const sums = query.sums;
  let touched = 0;
  const e = index.people.earlier;
  const h = index.people.history;
  for (const [rows, from, to] of [
    [e, e.start(u), e.start(u) + e.size(u)],
    [h, h.start(u), h.start(u) + h.size(u)],
  ] as const) {
    const { key, value } = rows.cols;
    for (let k = from; k < to; k++) {
      const item = key[k]!;
      if (Number.isNaN(sums[item]!)) {
        query.order = ensureLength(query.order, touched + 1);
        query.order[touched++] = item;
        sums[item] = value[k]!;
      } else sums[item]! += value[k]!;
    }
  }
  return touched;
}

/** How much more a user's latest items say than their older ones, and over how many items that fades by half. */
export const RECENT_BOOST = 1;
export const RECENT_HALF_LIFE = 5;

/** Fills `into` (cleared first) with user u's summed weight per item: the items before their history, then it. */
function sumStrengths(index: OrgIndex, u: number, into: Map<number, number>): Map<number, number> {
  into.clear();
  const e = index.people.earlier;
  for (let k = e.start(u); k < e.start(u) + e.size(u); k++) into.set(e.cols.key[k]!, e.cols.value[k]!);
  const h = index.people.history;
  const start = h.start(u);
  for (let k = start; k < start + h.size(u); k++) into.set(h.cols.key[k]!, (into.get(h.cols.key[k]!) ?? 0) + h.cols.value[k]!);
  return into;
}
