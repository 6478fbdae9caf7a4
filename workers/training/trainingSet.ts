import { ensureLength } from "../index/growable.js";
import type { OrgIndex } from "../index/orgIndex.js";
import type { SparseRows } from "./als.js";

/** Older interactions count less in the model: a quarter-year half-life. */
const STRENGTH_HALF_LIFE_S = 90 * 86_400;

/**
 * The user × item strength matrix the model learns from: each user's kept history, weights summed per item
 * (negative events subtract) and faded by age. Items and users keep the index's interned ids.
 */
export function trainingSet(index: OrgIndex, nowS: number): { matrix: SparseRows; userVersions: Int32Array } {
  const users = index.people.ids.size;
  const indptr = new Int32Array(users + 1);
  // Typed arrays from the start: millions of entries in JS arrays would leave that much garbage on the heap.
  let indices = new Int32Array(1024);
  let values = new Float32Array(1024);
  let n = 0;
  const perItem = new Map<number, number>();
  for (let u = 0; u < users; u++) {
    for (const [item, strength] of sumStrengths(index, u, nowS, perItem)) {
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
export function userStrengths(index: OrgIndex, u: number, nowS: number): { items: number[]; strengths: number[] } {
  const perItem = sumStrengths(index, u, nowS, new Map());
  return { items: [...perItem.keys()], strengths: [...perItem.values()] };
}

/** Fills `into` (cleared first) with user u's faded weight per item. */
function sumStrengths(index: OrgIndex, u: number, nowS: number, into: Map<number, number>): Map<number, number> {
  const h = index.people.history;
  into.clear();
  const start = h.start(u);
  for (let k = start; k < start + h.size(u); k++) {
    const w = h.cols.value[k]! * 2 ** ((h.cols.time[k]! - nowS) / STRENGTH_HALF_LIFE_S);
    into.set(h.cols.key[k]!, (into.get(h.cols.key[k]!) ?? 0) + w);
  }
  return into;
}
