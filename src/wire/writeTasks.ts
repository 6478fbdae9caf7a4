/** What the front thread hands a writer thread (piscina task) and what comes back. */

export interface WriteTask {
  /** A msgpackr-packed BatchPayload (batchPack.ts), transferred (not copied) from the front thread. */
  payload: Uint8Array<ArrayBuffer>;
}

/**
 * An organisation's stored items or users and their attribute bytes as a batch's transaction left them
 * (migration 013's org_usage): [org, kind, records, attribute bytes, version]. The version orders two readings.
 */
export type UsageRow = [org: number, kind: "item" | "user", records: number, attributeBytes: number, version: number];

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
      /** The usage of the organisations whose items or users the batch wrote. */
      usage?: UsageRow[];
      /** The task's payload, moved back to the front thread, which moves it on to the shards. */
      payload?: Uint8Array<ArrayBuffer>;
    }
  | {
      ok: false;
      unavailable: boolean;
      message: string;
      /** The batch would have taken an organisation past a quota (the message says which); nothing was stored. */
      quotaExceeded?: boolean;
    };

/** Served recommendations as binary COPY tuples, one after another (servedTuple.ts). */
export interface ServedTask {
  payload: Uint8Array;
}

export type ServedResult = { ok: true } | { ok: false; unavailable: boolean; message: string };
