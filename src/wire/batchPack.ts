import { Packr } from "msgpackr";
import type { BatchPayload } from "./batchRows.js";

const packr = new Packr({ useRecords: false });

/**
 * A batch as msgpack, in a buffer of its own so that it can be moved to another thread. It is packed once:
 * the writer thread gets these bytes, and after the commit the recommender threads get a copy of them. The
 * events come last, so that the reader of events in place (packedEvents.ts) sees that the items and users are
 * empty without walking past the events first.
 */
export function packBatch(batch: BatchPayload): Uint8Array<ArrayBuffer> {
  const p = packr.pack({ items: batch.items, users: batch.users, events: batch.events });
  const own = new Uint8Array(p.length);
  own.set(p);
  return own;
}

export function unpackBatch(bytes: Uint8Array): BatchPayload {
  return packr.unpack(bytes) as BatchPayload;
}

/** One packed value of a batch (a writer reading the rest in place decodes only these). */
export function unpackValue(bytes: Uint8Array): unknown {
  return packr.unpack(bytes);
}
