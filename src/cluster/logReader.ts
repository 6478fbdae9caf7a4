import type pg from "pg";
import { metrics } from "../metrics/registry.js";
import { log } from "../wire/log.js";
import { CAP_MINUTES, LIVE_MINUTES } from "./pruneBatchLog.js";

/** Four refreshes fit in LIVE_MINUTES: a slow or failed one does not let the prune take what this process has not read. */
const REFRESH_MS = 30_000;

/** With no snapshot given, the statement's own: taken before the load, so a batch it holds as committed is in the load. */
const REGISTER = `INSERT INTO batch_log_readers (origin, snapshot) VALUES ($1, coalesce($2::pg_snapshot, pg_current_snapshot()))
ON CONFLICT (origin) DO UPDATE SET snapshot = EXCLUDED.snapshot, seen_at = now(), missed = 0
RETURNING snapshot::text, pg_snapshot_xmin(snapshot)::text AS xmin`;

const REFRESH = `UPDATE batch_log_readers SET snapshot = $2::pg_snapshot, seen_at = now() WHERE origin = $1 RETURNING missed::text`;

/**
 * This process's row in batch_log_readers (CLUSTER=1): the snapshot of its last complete read of the log (at
 * first, the one taken before its load), refreshed every 30 s from the start of the load on, so that the prune
 * keeps what it has not read (src/cluster/pruneBatchLog.ts). What the prune took all the same is reported here,
 * as an error and in recsvc_cluster_batches_missed_total: silently missing batches is what this row prevents.
 */
export class LogReader {
  private snapshot: string | undefined;
  /** When `snapshot` was taken (this clock): how far behind the process is if batches after it were pruned. */
  private snapshotAt = 0;
  /** `missed` as last read back from the row (0 again once the row is made anew). */
  private charged = 0n;
  private missedTotal = 0;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
    private readonly refreshMs = REFRESH_MS,
  ) {}

  /** Registers the current snapshot and answers its xmin, the feed's first horizon; refreshes the row from now on. */
  async start(): Promise<string> {
    const xmin = await this.register();
    this.timer = setInterval(() => {
      this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    }, this.refreshMs);
    this.timer.unref();
    return xmin;
  }

  /** A read is complete: every batch its snapshot holds as committed has been read. Sent at the next refresh. */
  advance(snapshot: string): void {
    this.snapshot = snapshot;
    this.snapshotAt = Date.now();
  }

  /** Batches pruned before this process read them, as far as it has heard. */
  get missed(): number {
    return this.missedTotal;
  }

  /** At shutdown, once the feed reads no more: the prune stops keeping anything for this process. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    while (this.refreshing) await this.refreshing;
    await this.pool.query("DELETE FROM batch_log_readers WHERE origin = $1", [this.origin]).catch((err: Error) =>
      log.warn(`this process's row in batch_log_readers could not be deleted; it holds the log ${LIVE_MINUTES} minutes more`, {
        error: err.message,
      }),
    );
  }

  private async register(): Promise<string> {
    const { rows } = await this.pool.query<{ snapshot: string; xmin: string }>(REGISTER, [this.origin, this.snapshot ?? null]);
    if (this.snapshot === undefined) this.advance(rows[0]!.snapshot);
    this.charged = 0n;
    return rows[0]!.xmin;
  }

  private async refresh(): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ missed: string }>(REFRESH, [this.origin, this.snapshot]);
      if (rows.length === 0) {
        log.error(
          `this process's row in batch_log_readers was gone (a PostgreSQL crash empties it; the prune forgets a process silent for ${CAP_MINUTES} minutes): batches logged by other processes and pruned meanwhile may be missing from its recommendations until it restarts`,
          { behind_s: this.behindS() },
        );
        await this.register();
        return;
      }
      this.report(BigInt(rows[0]!.missed));
    } catch (err) {
      log.warn(
        `this process's row in batch_log_readers could not be refreshed; the prune keeps what it has not read until ${LIVE_MINUTES} minutes after the last refresh`,
        { error: (err as Error).message },
      );
    }
  }

  private report(charged: bigint): void {
    if (charged <= this.charged) return;
    const batches = Number(charged - this.charged);
    this.charged = charged;
    this.missedTotal += batches;
    metrics.clusterBatchesMissed.inc(batches);
    log.error(
      `batches other processes logged were pruned before this process read them (kept ${CAP_MINUTES} minutes at most): its recommendations lack them until it restarts`,
      { batches, missed_total: this.missedTotal, behind_s: this.behindS() },
    );
  }

  /** Seconds since the snapshot of the last complete read (or of the start, while loading). */
  private behindS(): number {
    return Math.round((Date.now() - this.snapshotAt) / 1000);
  }
}
