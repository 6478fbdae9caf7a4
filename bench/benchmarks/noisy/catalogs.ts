/**
 * The catalogs bench:noisy loads: hostile ones (what one free organisation may store within the documented
 * limits, built to cost the recommender the most) and the bystanders' ordinary ones.
 */
import { postJson, sendInArrays, viewEvent } from "../../kit/api.js";

/** Items of the tag catalog: each with one array attribute of TAGS strings, all distinct but one shared. */
const TAG_ITEMS = 2_001;
export const TAGS = 999;
/** The tag every item of the tag catalog holds, last in its array (a linear any-of check reads them all). */
const COMMON_TAG = "common-to-all";
/** Items of the text catalog: each with one 30 KiB string attribute. */
const TEXT_BYTES = 30 * 1024;
const BODY_BYTES_MAX = 4 * 1024 * 1024;

const tagItemId = (i: number): string => `tagged-${i}`;
/** A value no item holds: for any-of filters that every item fails after reading all of its tags. */
const missingTag = (k: number): string => `missing-tag-${String(k).padStart(6, "0")}`;

/** One item of the tag catalog: 999 distinct 12-character tags (about 16 KB of JSON). */
function tagItem(i: number): Record<string, unknown> {
  const tags = Array.from({ length: TAGS - 1 }, (_, k) => `t${String(i).padStart(5, "0")}-${String(k).padStart(4, "0")}`);
  tags.push(COMMON_TAG);
  return { item_id: tagItemId(i), item_type: "hostile", status: "active", attributes: { tags } };
}

function textItem(i: number): Record<string, unknown> {
  const text = `${i}:`.padEnd(TEXT_BYTES, "lorem ipsum dolor sit amet ");
  return { item_id: `text-${i}`, item_type: "hostile", status: "active", attributes: { description: text } };
}

/** Upserts `n` items made by `make`, in bodies under the body cap; returns the JSON bytes of their attributes. */
async function upsertAll(url: string, sk: string, n: number, make: (i: number) => Record<string, unknown>): Promise<number> {
  let attributeBytes = 0;
  let batch: string[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await postJson(`${url}/v1/items/upsert`, sk, `[${batch.join(",")}]`);
    if (res.status !== 202 && res.status !== 200) throw new Error(`items upsert answered ${res.status}: ${res.body.slice(0, 300)}`);
    batch = [];
    batchBytes = 0;
  };
  for (let i = 0; i < n; i++) {
    const item = make(i);
    const json = JSON.stringify(item);
    attributeBytes += Buffer.byteLength(JSON.stringify(item.attributes));
    if (batchBytes + json.length > BODY_BYTES_MAX) await flush();
    batch.push(json);
    batchBytes += json.length + 1;
  }
  await flush();
  return attributeBytes;
}

export const loadTagCatalog = (url: string, sk: string): Promise<number> => upsertAll(url, sk, TAG_ITEMS, tagItem);
export const loadTextCatalog = (url: string, sk: string, items: number): Promise<number> => upsertAll(url, sk, items, textItem);

/** Views of every tagged item (so that `popular` has scores and scans the catalog when a filter empties its top). */
export async function viewTagCatalog(url: string, pk: string): Promise<void> {
  await sendEvents(url, pk, TAG_ITEMS * 2, (k) => tagItemId(k % TAG_ITEMS));
}

/** A bystander's ordinary catalog: 200 items with a brand and a price, and 2,000 views. */
export async function loadBystander(url: string, sk: string, pk: string): Promise<void> {
  await upsertAll(url, sk, 200, (i) => ({
    item_id: `sku-${i}`,
    item_type: "product",
    status: "active",
    attributes: { brand: `brand-${i % 10}`, price: 5 + (i % 50), title: `Product ${i}` },
  }));
  await sendEvents(url, pk, 2_000, (k) => `sku-${(k * 7919) % 200}`);
}

async function sendEvents(url: string, pk: string, n: number, item: (k: number) => string): Promise<void> {
  const events = Array.from({ length: n }, (_, k) => viewEvent(`u-${k % 97}`, item(k)));
  await sendInArrays(`${url}/v1/events/ingest`, pk, events, { size: 1_000, inFlight: 1 });
}

/**
 * The hostile organisation's most expensive valid recommend requests on the tag catalog, by kind: `similar` on
 * an item of 999 distinct tags (the request), the same naming `fields`, and any-of filters of 100
 * values none of its items hold, for `popular` (which then scans the whole catalog) and `similar`, at the
 * deepest page (page × limit = 10,000) and with 1,000 excluded ids.
 */
export const HOSTILE_KINDS = ["similar", "similar-fields", "popular-filtered", "similar-filtered"] as const;
type HostileKind = (typeof HOSTILE_KINDS)[number];

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
