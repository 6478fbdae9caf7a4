/**
 * What ORG_MAX_ATTRIBUTE_BYTES counts: an item's attributes as the compact JSON the writer stores, in UTF-8
 * bytes. The front's estimate and the writer's stored figure (items.attribute_bytes) come from these two
 * functions, so they agree to the byte.
 */
export function attributesJson(attributes: unknown): string {
  return JSON.stringify(attributes);
}

export function attributeBytes(attributes: unknown): number {
  return Buffer.byteLength(attributesJson(attributes));
}
