import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import { BATCH_CHANNEL } from "../wire/batchLog.js";
import { log } from "../wire/log.js";
import { LogReader } from "./logReader.js";
import { pruneBatchLog } from "./pruneBatchLog.js";

const PAGE = 200;
const PRUNE_EVERY_MS = 60_000;

interface LoggedBatch {
  /** The oldest transaction still running when the page was read (null-joined: present on an empty page too). */
  horizon: string;
  /** The page's snapshot: once the read is complete, every batch it holds as committed has been read. */
  snapshot: string;
  id: string | null;
  xid: string;
  packed: Buffer;
  not_stored: number[] | null;
}

/**
 * The other processes' batches (logged in their writers' transactions, src/wire/batchLog.ts), handed to `apply`
 * exactly once each, with the id of the transaction that wrote it.
 *
 * Exactly once, in three parts:
 * - Nothing read twice. Ids (bigserial) are drawn when a row is inserted, and several writer threads insert
 *   in transactions that commit in any order, so a row with a lower id than one already read may commit later:
 *   "after the last id read" would skip it. Instead each read notes its snapshot's xmin, the oldest
 *   transaction still running then; every transaction older than that had ended, so its row, if any, was in
 *   that read. The next read asks only for rows of transactions from that horizon on, less the ids already
 *   read there (`seen`, forgotten once the horizon passes their transaction).
 * - Nothing missed at start. `markStart` takes the horizon before the recommender's loads take their
 *   snapshots: a transaction older than it had ended before, so its batch is in every load; anything newer
 *   is read.
 * - Nothing counted twice at start. A batch read here may also be in what a load read from the tables (it
 *   committed before that load's snapshot): the recommender thread compares the transaction id with its
 *   load's snapshot and drops such a batch (workers/recommender/recommenderThread.ts).
 *
 * A notice (sent after the writer's commit, src/cluster/batchNotifier.ts) names its process; one from any other
 * process starts a read, and notices arriving during a read make one more read after it. After a lost
 * connection, a read catches up.
 *
 * The log keeps a batch 5 minutes, and up to 30 while a process registered in batch_log_readers has not read it:
 * this one is registered from markStart to stop (src/cluster/logReader.ts).
 */
export class BatchFeed {
  /** Transactions older than this are done with: their batches have been read (or were loaded). */
  private horizon = "0";
  /** Ids read from transactions at or past the horizon, with their transaction id. */
  private readonly seen = new Map<string, bigint>();
  private reading: Promise<void> | undefined;
  private again = false;
  private readonly listener: ChannelListener;
  private pruner: ReturnType<typeof setInterval> | undefined;
  private readonly reader: LogReader;

  /** `refreshMs`: how often this process's row in batch_log_readers is refreshed (shorter in tests). */
  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
    private readonly origin: string,
    private readonly apply: (packed: Uint8Array, notStored: readonly number[] | undefined, xid: string) => void,
    refreshMs?: number,
  ) {
    this.reader = new LogReader(pool, origin, refreshMs);
    this.listener = new ChannelListener(
      connect,
      BATCH_CHANNEL,
      (origin) => {
        if (origin !== this.origin) void this.read();
      },
      () => this.read(),
    );
  }

  /** Before the recommender loads the tables (see the class comment); from here on the log keeps what this process has not read. */
  async markStart(): Promise<void> {
    this.horizon = await this.reader.start();
  }

  /** Batches pruned before this process read them, as far as it has heard (each is also logged as an error). */
  get missed(): number {
    return this.reader.missed;
  }

  /** Once the recommender can take batches: resolves after the first read, which catches up since markStart. */
  async listen(): Promise<void> {
    await this.listener.start();
    // Every process prunes, once a minute (src/cluster/pruneBatchLog.ts).
    this.pruner = setInterval(() => {
      pruneBatchLog(this.pool).catch((err: Error) => log.warn("the batch log could not be pruned", { error: err.message }));
    }, PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pruner);
    await this.listener.stop();
    while (this.reading) await this.reading;
    await this.reader.stop();
  }

  /**
   * Resolves after a read that began after this call: every other process's batch committed before the call has
   * then been handed to `apply` (an index snapshot's position, src/recommend/indexSnapshots.ts).
   */
  catchUp(): Promise<void> {
    return this.read();
  }

  /** Reads what is new; a call during a read makes one more read after it (its notice may be for a later commit). */
  private read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        try {
          await this.readNew();
        } catch (err) {
          log.warn("logged batches could not be read; reading again at the next notice", { error: (err as Error).message });
        }
      } while (this.again);
      this.reading = undefined;
    })();
    return this.reading;
  }

  private async readNew(): Promise<void> {
    let after = "0";
    let first: LoggedBatch | undefined;
    for (;;) {
      const { rows } = await this.pool.query<LoggedBatch>(
        `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon, pg_current_snapshot()::text AS snapshot, b.id::text, b.xid::text, b.packed, b.not_stored
         FROM (SELECT 1) one LEFT JOIN LATERAL (
           SELECT id, xid, packed, not_stored FROM batch_log
           WHERE xid >= $1::xid8 AND origin <> $2 AND id > $3 AND id <> ALL($4::bigint[])
           ORDER BY id LIMIT $5
         ) b ON true`,
        [this.horizon, this.origin, after, [...this.seen.keys()], PAGE],
      );
      // The first page's snapshot: every page after it sees at least what that snapshot saw.
      first ??= rows[0]!;
      const batches = rows.filter((r) => r.id !== null);
      for (const b of batches) {
        this.seen.set(b.id!, BigInt(b.xid));
        this.apply(b.packed, b.not_stored ?? undefined, b.xid);
      }
      if (batches.length < PAGE) break;
      after = batches[batches.length - 1]!.id!;
    }
    // Snapshots' xmin never goes back (an id below it belongs to a transaction that has ended); max() says so.
    const floor = BigInt(first!.horizon) > BigInt(this.horizon) ? BigInt(first!.horizon) : BigInt(this.horizon);
    this.horizon = floor.toString();
    for (const [id, xid] of this.seen) if (xid < floor) this.seen.delete(id);
    this.reader.advance(first!.snapshot);
  }
}
