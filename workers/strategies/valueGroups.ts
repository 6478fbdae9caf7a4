import type { Catalog } from "../index/catalog.js";

/** One value an item holds under one of `max_per`'s attributes: `attribute` is the name's place in the request. */
export interface ValueGroup {
  attribute: number;
  /** The attribute's place and the value's JSON text: equal for two items exactly when they share the value. */
  key: string;
}

const NONE: readonly ValueGroup[] = [];

/**
 * The values the item holds under each of `names` (an array attribute holds each of its elements; `null` or no
 * such attribute, none), read from its stored metadata text cut to those names: the catalog keeps no parsed
 * attributes, and only the candidates a `max_per` request scans are read.
 */
export function valueGroups(catalog: Catalog, item: number, names: readonly string[]): readonly ValueGroup[] {
  const metadata = catalog.metadata(item, names);
  let out: ValueGroup[] | undefined;
  for (let attribute = 0; attribute < names.length; attribute++) {
    const value = metadata[names[attribute]!];
    if (value === undefined || value === null) continue;
    out ??= [];
    if (!Array.isArray(value)) {
      out.push({ attribute, key: `${attribute}:${JSON.stringify(value)}` });
      continue;
    }
    // An array may repeat a value: it counts once.
    const keys = new Set((value as unknown[]).filter((v) => v !== null).map((v) => `${attribute}:${JSON.stringify(v)}`));
    for (const key of keys) out.push({ attribute, key });
  }
  return out ?? NONE;
}
