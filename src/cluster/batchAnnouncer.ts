import type pg from "pg";
import { log } from "../wire/log.js";

export const BATCH_CHANNEL = "recsvc_batches";

/** At most this many batches in one statement. */
const PER_STATEMENT = 100;

/**
 * One statement for the batches waiting: rows go in in the order listed (their commit order), each batch's
 * bytes as a binary parameter of its own, and one notice naming this process goes out when it commits.
 */
function announceStatement(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `($1, $${2 * i + 2}, $${2 * i + 3}::integer[])`).join(", ");
  return `WITH b AS (INSERT INTO batch_log (origin, packed, not_stored) VALUES ${rows} RETURNING 1)
SELECT pg_notify('${BATCH_CHANNEL}', $1::text) WHERE EXISTS (SELECT 1 FROM b)`;
}

/**
 * Tells the other processes on this database of each batch this one committed, in commit order. One statement
 * is in flight at a time, and the batches committed meanwhile go together in the next, so that a busy process
 * costs PostgreSQL one statement per round trip, not one per batch. A batch that cannot be announced (the
 * database went away) is data in the tables all the same: the others miss it until they next load, which the
 * warning says.
 */
export class BatchAnnouncer {
  private waiting: Array<{ packed: Buffer; notStored: readonly number[] | null }> = [];
  private sending: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
  ) {}

  announce(packed: Uint8Array, notStored: readonly number[] | undefined): void {
    this.waiting.push({ packed: Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength), notStored: notStored ?? null });
    this.sending ??= this.sendWaiting();
  }

  /** Resolves once every batch handed over so far is announced (or given up). */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async sendWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batches = this.waiting.splice(0, PER_STATEMENT);
      try {
        await this.pool.query(announceStatement(batches.length), [this.origin, ...batches.flatMap((b) => [b.packed, b.notStored])]);
      } catch (err) {
        log.warn("committed batches could not be announced to the other processes", { batches: batches.length, error: (err as Error).message });
      }
    }
    this.sending = undefined;
  }
}
