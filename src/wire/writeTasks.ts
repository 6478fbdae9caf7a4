/** What the front thread hands a writer thread (piscina task) and what comes back. */

export interface WriteTask {
  /** A msgpackr-packed BatchPayload (batchPack.ts), transferred (not copied) from the front thread. */
  payload: Uint8Array;
}

export type WriteResult =
  | {
      ok: true;
      events: number;
      items: number;
      users: number;
      /**
       * Positions (in the batch's events) of those the index must skip: not stored by this batch (already held,
       * or repeated in it), or stored but refused (an identify the database did not apply: migration 015).
       */
      notStored?: number[];
    }
  | { ok: false; unavailable: boolean; message: string };

/** Served recommendations as binary COPY tuples, one after another (servedTuple.ts). */
export interface ServedTask {
  payload: Uint8Array;
}

export type ServedResult = { ok: true } | { ok: false; unavailable: boolean; message: string };
