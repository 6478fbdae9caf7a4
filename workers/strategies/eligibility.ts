import type { FilterValue, RankRequest } from "../../src/wire/rank.js";
import type { Catalog } from "../index/catalog.js";
import type { OrgIndex } from "../index/orgIndex.js";

/** Decides, per candidate item, whether a request may return it. */
export type Eligible = (item: number) => boolean;

type Matcher = (value: unknown) => boolean;

/**
 * Only active items; of the requested type; not excluded by id; not already seen by the user (when asked);
 * passing every filter (CONTRACT 5: equality, any-of, inclusive numeric range; an array attribute matches when
 * it contains a wanted value).
 */
export function eligibility(index: OrgIndex, req: RankRequest, seen: { has(item: number): boolean } | undefined): Eligible {
  const catalog = index.catalog;
  // Most requests set none of these: their test runs for every candidate a search hands back.
  if (req.itemType === undefined && !req.excludeItemIds?.length && req.filters === undefined) {
    if (!seen) return (i) => catalog.isActive(i);
    return (i) => {
      // Both read before either decides: two likely cache misses then overlap instead of following each other.
      const active = catalog.isActive(i);
      const unseen = !seen.has(i);
      return active && unseen;
    };
  }
  const type = req.itemType === undefined ? -2 : catalog.types.find(req.itemType);
  const excluded = new Set<number>();
  for (const id of req.excludeItemIds ?? []) {
    const i = catalog.ids.find(id);
    if (i >= 0) excluded.add(i);
  }
  const filters = Object.entries(req.filters ?? {}).map(([name, want]) => [name, matcher(want)] as const);
  return (i) => {
    if (!catalog.isActive(i)) return false;
    if (type !== -2 && catalog.type[i] !== type) return false;
    if (excluded.has(i) || seen?.has(i)) return false;
    return filters.length === 0 || passesFilters(catalog, i, filters);
  };
}

function passesFilters(catalog: Catalog, i: number, filters: ReadonlyArray<readonly [string, Matcher]>): boolean {
  const attrs = catalog.attributes[i];
  if (!attrs) return false;
  for (const [name, matches] of filters) {
    const value = attrs[name];
    if (Array.isArray(value) ? !value.some(matches) : !matches(value)) return false;
  }
  return true;
}

function matcher(want: FilterValue): Matcher {
  if (Array.isArray(want)) {
    const options = new Set<unknown>(want);
    return (v) => options.has(v);
  }
  if (typeof want === "object") {
    const min = want.min ?? -Infinity;
    const max = want.max ?? Infinity;
    return (v) => typeof v === "number" && v >= min && v <= max;
  }
  return (v) => v === want;
}
