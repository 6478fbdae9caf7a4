import { IdListReader } from "../../src/wire/idList.js";
import type { FilterValue, RankRequest } from "../../src/wire/rank.js";
import { type AttributeValues, nameKey, valueKey } from "../index/attributeValues.js";
import { Marks } from "../index/marks.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { work } from "./workBudget.js";

/** Decides, per candidate item, whether a request may return it. */
export type Eligible = (item: number) => boolean;

/**
 * Never the request's context items (`contexts`: an item is not similar to, or bought with, itself); only the
 * caller's `candidates` when it sends them; only active items; of the requested type; not excluded by id; not already seen by the user (when asked);
 * passing every filter (CONTRACT 5: equality, any-of, inclusive numeric range; an array attribute matches when
 * it contains a wanted value), each filter a few binary searches of the item's values (index/attributeValues.ts)
 * within the request's work budget.
 */
export function eligibility(
  index: OrgIndex,
  req: RankRequest,
  seen: { has(item: number): boolean } | undefined,
  contexts: readonly number[] = [],
  listed?: readonly number[],
): Eligible {
  const catalog = index.catalog;
  const context = contexts.length === 1 ? contexts[0]! : -1;
  // Most requests set none of these: their test runs for every candidate a search hands back.
  if (req.itemType === undefined && !req.excludeItemIds?.length && req.filters === undefined && !req.candidates && contexts.length <= 1) {
    if (!seen)
      return (i) => {
        work.itemsVisited++;
        return i !== context && catalog.isActive(i);
      };
    return (i) => {
      work.itemsVisited++;
      // Both read before either decides: two likely cache misses then overlap instead of following each other.
      const active = catalog.isActive(i);
      const unseen = !seen.has(i);
      return active && unseen && i !== context;
    };
  }
  const type = req.itemType === undefined ? -2 : catalog.types.find(req.itemType);
  const excluded = new Set<number>(contexts);
  for (const id of req.excludeItemIds ?? []) {
    const i = catalog.ids.find(id);
    if (i >= 0) excluded.add(i);
  }
  // Only the caller's list, when it sends one (unknown ids have no place in the catalog to rank).
  const only = req.candidates ? marked(listed ?? listedItems(index, req.candidates)) : undefined;
  const filters = Object.entries(req.filters ?? {}).map(([name, want]) => compile(name, want));
  const values = catalog.values;
  return (i) => {
    work.itemsVisited++;
    if (only !== undefined && !only.has(i)) return false;
    if (!catalog.isActive(i)) return false;
    if (type !== -2 && catalog.type[i] !== type) return false;
    if (excluded.has(i) || seen?.has(i)) return false;
    if (filters.length === 0) return true;
    // Past the request's budget the candidates not checked yet are left out: the answer is what was found.
    if (!work.filterProbesLeft()) return false;
    for (const f of filters) if (!passes(values, i, f)) return false;
    return true;
  };
}

/** A filter as what an item's values are searched for: keys of wanted text and booleans, [min, max] number ranges. */
export interface Filter {
  keys: number[];
  name: number;
  ranges: number[];
}

export function compile(name: string, want: FilterValue): Filter {
  const f: Filter = { keys: [], name: nameKey(name), ranges: [] };
  const add = (v: string | number | boolean) => (typeof v === "number" ? f.ranges.push(v, v) : f.keys.push(valueKey(name, v)));
  if (Array.isArray(want)) for (const v of want) add(v);
  else if (typeof want === "object") f.ranges.push(want.min ?? -Infinity, want.max ?? Infinity);
  else add(want);
  return f;
}

/**
 * Whether the item holds one of the filter's values (each probe a binary search, counted in the request's work
 * unless `counted` is false: work done once and shared by requests).
 */
export function passes(values: AttributeValues, i: number, f: Filter, counted = true): boolean {
  const probe = counted ? 1 : 0;
  for (const key of f.keys) {
    work.filterProbes += probe;
    if (values.hasKey(i, key)) return true;
  }
  for (let r = 0; r < f.ranges.length; r += 2) {
    work.filterProbes += probe;
    if (values.hasNumber(i, f.name, f.ranges[r]!, f.ranges[r + 1]!)) return true;
  }
  return false;
}

/** The request's `candidates` (one thread ranks one request at a time): no set built per request. */
const listedMarks = new Marks();

function marked(listed: readonly number[]): Marks {
  listedMarks.clear();
  for (const i of listed) listedMarks.add(i);
  return listedMarks;
}

const listedIds = new IdListReader();

/** The caller's `candidates` (packed: src/wire/idList.ts) the catalog knows, interned, each once, in the caller's order. */
export function listedItems(index: OrgIndex, candidates: Uint8Array): number[] {
  const out: number[] = [];
  const ids = index.catalog.ids;
  listedMarks.clear();
  const r = listedIds.open(candidates);
  while (r.next()) {
    const i = ids.findBytes(r.bytes, r.at, r.n);
    if (i < 0 || listedMarks.has(i)) continue;
    listedMarks.add(i);
    out.push(i);
  }
  return out;
}
