import type pg from "pg";
import { log } from "../wire/log.js";

export const BATCH_CHANNEL = "recsvc_batches";

/**
 * One statement for every batch waiting: they go in the log in their commit order (unnest keeps it), and one
 * notice naming this process goes out, delivered when the statement commits.
 */
const ANNOUNCE = `WITH b AS (
  INSERT INTO batch_log (origin, packed, not_stored)
  SELECT $1, t.packed, CASE WHEN t.not_stored = '' THEN NULL ELSE string_to_array(t.not_stored, ',')::integer[] END
  FROM unnest($2::bytea[], $3::text[]) WITH ORDINALITY AS t(packed, not_stored, n) ORDER BY t.n
  RETURNING 1)
SELECT pg_notify('${BATCH_CHANNEL}', $1::text) WHERE EXISTS (SELECT 1 FROM b)`;

/**
 * Tells the other processes on this database of each batch this one committed, in commit order. One statement
 * is in flight at a time, and the batches committed meanwhile go together in the next, so that a busy process
 * costs PostgreSQL one statement per round trip, not one per batch. A batch that cannot be announced (the
 * database went away) is data in the tables all the same: the others miss it until they next load, which the
 * warning says.
 */
export class BatchAnnouncer {
  private waiting: Array<{ packed: Buffer; notStored: string }> = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
  ) {}

  announce(packed: Uint8Array, notStored: readonly number[] | undefined): void {
    this.waiting.push({ packed: Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength), notStored: notStored?.join(",") ?? "" });
    this.sending ??= this.sendWaiting();
  }

  /** Resolves once every batch handed over so far is announced (or given up). */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async sendWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batches = this.waiting;
      this.waiting = [];
      try {
        await this.pool.query(ANNOUNCE, [this.origin, batches.map((b) => b.packed), batches.map((b) => b.notStored)]);
      } catch (err) {
        log.warn("committed batches could not be announced to the other processes", { batches: batches.length, error: (err as Error).message });
      }
    }
    this.sending = undefined;
  }
}
