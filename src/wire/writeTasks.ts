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
      /** Positions (in the batch's events) of those this batch did not store: already held, or repeated in it. */
      notStored?: number[];
    }
  | { ok: false; unavailable: boolean; message: string };

/** Served recommendations as binary COPY tuples, one after another (servedTuple.ts). */
export interface ServedTask {
  payload: Uint8Array;
}

export type ServedResult = { ok: true } | { ok: false; unavailable: boolean; message: string };
