/**
 * The hostile organisation's most expensive valid recommend requests on the tag catalog, by kind: `similar` on
 * an item of 999 distinct tags (the request), the same naming `fields`, and any-of filters of 100
 * values none of its items hold, for `popular` (which then scans the whole catalog) and `similar`, at the
 * deepest page (page × limit = 10,000) and with 1,000 excluded ids.
 */
import { missingTag, TAG_ITEMS, tagItemId } from "./catalogs.js";

export const HOSTILE_KINDS = ["similar", "similar-fields", "popular-filtered", "similar-filtered"] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

const missing = Array.from({ length: 100 }, (_, k) => missingTag(k));
const excluded = Array.from({ length: 1_000 }, (_, k) => `not-an-item-${k}`);
/** Twenty filters, at most 100 values each: the first one every item fails only after reading its whole tag list. */
const filters: Record<string, unknown> = { tags: missing };
for (let f = 1; f < 20; f++) filters[`absent-${f}`] = missing;

/** The k-th hostile request of a kind (its context item varies, so that no answer is shared). */
export function hostileBody(kind: HostileKind, k: number): string {
  const context_item_id = tagItemId((k * 7) % TAG_ITEMS);
  switch (kind) {
    case "similar":
      return JSON.stringify({ strategy: "similar", context_item_id, limit: 100 });
    case "similar-fields":
      return JSON.stringify({ strategy: "similar", context_item_id, limit: 100, fields: ["tags"] });
    case "popular-filtered":
      return JSON.stringify({ strategy: "popular", limit: 100, page: 100, filters, exclude_item_ids: excluded });
    case "similar-filtered":
      return JSON.stringify({ strategy: "similar", context_item_id, limit: 100, page: 100, filters, exclude_item_ids: excluded });
  }
}
