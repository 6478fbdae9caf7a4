/**
 * The text an item is answered with, around its score and reason: `{"item_id":"…","score":` (its head), then
 * `,"metadata":{…}}`. Kept per item from its upsert (see Catalog.rendered): it is also where the item's
 * attributes are read back from, so they are not held a second time as objects.
 */
export const HEAD_OPEN = '{"item_id":';
export const HEAD_CLOSE = ',"score":';
export const METADATA_OPEN = ',"metadata":';

/** The item's head: its length in UTF-8 is where the metadata part starts. */
export function itemHead(itemId: string): string {
  return `${HEAD_OPEN}${JSON.stringify(itemId)}${HEAD_CLOSE}`;
}

/** The metadata part, from the item's attributes (as stored) and its type (null when unknown). */
export function itemMetadata(attributes: Record<string, unknown>, itemType: string | null): string {
  const out: Record<string, unknown> = Object.assign({}, attributes);
  out.item_type = itemType;
  return `${METADATA_OPEN}${JSON.stringify(out)}}`;
}
