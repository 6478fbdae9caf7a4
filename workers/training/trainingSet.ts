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
  const users = index.people.ids.size;
  const indptr = new Int32Array(users + 1);
  // Typed arrays from the start: millions of entries in JS arrays would leave that much garbage on the heap.
  let indices = new Int32Array(1024);
  let values = new Float32Array(1024);
  let n = 0;
  const perItem = new Map<number, number>();
  for (let u = 0; u < users; u++) {
    for (const [item, strength] of sumStrengths(index, u, perItem)) {
      if (strength <= 0) continue;
      indices = ensureLength(indices, n + 1);
      values = ensureLength(values, n + 1);
      indices[n] = item;
      values[n++] = strength;
    }
    indptr[u + 1] = n;
  }
  return {
    matrix: { rows: users, cols: index.catalog.size, indptr, indices: indices.slice(0, n), values: values.slice(0, n) },
    userVersions: index.people.version.slice(0, users),
  };
}

/** A user's current strengths per item, the same way (for fold-in at request time). */
export function userStrengths(index: OrgIndex, u: number): { items: number[]; strengths: number[] } {
  const perItem = sumStrengths(index, u, new Map());
  return { items: [...perItem.keys()], strengths: [...perItem.values()] };
}

/**
 * A user's positive items, latest last, each weighted 1 + RECENT_BOOST·2^(−r/RECENT_HALF_LIFE) where r counts the
 * distinct items they touched since (0: the latest): recency relative to the user's own activity, not to the
 * clock, so a user who comes back after a year is read by what they did last.
 */
export function queryOf(index: OrgIndex, u: number): { items: Int32Array; weights: Float64Array } {
  const perItem = sumStrengths(index, u, new Map());
  const h = index.people.history;
  const latest: number[] = [];
  const placed = new Set<number>();
  for (let k = h.start(u) + h.size(u) - 1; k >= h.start(u); k--) {
    const item = h.cols.key[k]!;
    if (placed.has(item) || !(perItem.get(item)! > 0)) continue;
    placed.add(item);
    latest.push(item);
  }
  const items: number[] = [];
  const weights: number[] = [];
  for (const [item, strength] of perItem) {
    if (strength <= 0 || placed.has(item)) continue;
    items.push(item);
    weights.push(1);
  }
  for (let r = latest.length - 1; r >= 0; r--) {
    items.push(latest[r]!);
    weights.push(1 + RECENT_BOOST * 2 ** (-r / RECENT_HALF_LIFE));
  }
  return { items: Int32Array.from(items), weights: Float64Array.from(weights) };
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
