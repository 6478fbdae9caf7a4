const encoder = new TextEncoder();

/** At most 10,000 records and 5 MiB per request (CONTRACT 4); a margin under the bytes for the array's punctuation. */
export const MAX_RECORDS = 10_000;
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Splits records into request bodies (JSON arrays) of at most `maxCount` records and `maxBytes` bytes. */
export function* requestBodies<T>(
  records: readonly T[],
  maxCount = MAX_RECORDS,
  maxBytes = MAX_BODY_BYTES,
): Generator<{ body: string; records: T[] }> {
  let parts: string[] = [];
  let batch: T[] = [];
  let bytes = 2;
  for (const r of records) {
    const json = JSON.stringify(r);
    const size = encoder.encode(json).length + 1;
    if (batch.length > 0 && (batch.length === maxCount || bytes + size > maxBytes)) {
      yield { body: `[${parts.join(",")}]`, records: batch };
      parts = [];
      batch = [];
      bytes = 2;
    }
    parts.push(json);
    batch.push(r);
    bytes += size;
  }
  if (batch.length > 0) yield { body: `[${parts.join(",")}]`, records: batch };
}
