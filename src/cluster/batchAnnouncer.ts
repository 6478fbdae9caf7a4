import type pg from "pg";
import { log } from "../wire/log.js";

export const BATCH_CHANNEL = "recsvc_batches";

/** One statement: the batch goes in the log and its id out on the channel, delivered when it commits. */
const ANNOUNCE = `WITH b AS (INSERT INTO batch_log (origin, packed, not_stored) VALUES ($1, $2, $3) RETURNING id)
SELECT pg_notify('${BATCH_CHANNEL}', $1::text) FROM b`;

/**
 * Tells the other processes on this database of each batch this one committed, in commit order, one statement
 * at a time. A batch that cannot be announced (the database went away) is data in the tables all the same:
 * the others miss it until they next load, which the warning says.
 */
export class BatchAnnouncer {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
  ) {}

  announce(packed: Uint8Array, notStored: readonly number[] | undefined): void {
    const bytes = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
    this.chain = this.chain.then(() =>
      this.pool.query(ANNOUNCE, [this.origin, bytes, notStored ?? null]).then(
        () => undefined,
        (err: Error) => log.warn("a committed batch could not be announced to the other processes", { error: err.message }),
      ),
    );
  }

  /** Resolves once every batch handed over so far is announced (or given up). */
  drain(): Promise<void> {
    return this.chain;
  }
}
