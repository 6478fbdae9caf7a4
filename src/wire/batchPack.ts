import { Packr } from "msgpackr";
import type { BatchPayload } from "./batchRows.js";
import { MsgpackCursor } from "./msgpackCursor.js";

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

/**
 * The organisations a packed batch holds records of, read in place (every row of every kind begins with its
 * organisation): for a batch another process committed, whose owners were not noted when it was built.
 */
export function packedBatchOrgs(bytes: Uint8Array): number[] {
  const c = new MsgpackCursor(bytes);
  const orgs: number[] = [];
  for (let keys = c.mapLength(); keys > 0; keys--) {
    c.skip();
    for (let rows = c.arrayLength(); rows > 0; rows--) {
      const columns = c.arrayLength();
      const org = c.number();
      if (org === undefined || columns < 1) throw new Error("packed batch: a row without its organisation");
      if (!orgs.includes(org)) orgs.push(org);
      for (let k = 1; k < columns; k++) c.skip();
    }
  }
  return orgs;
}
