import type pg from "pg";
import { log } from "../wire/log.js";

/** How long a round waits for the batches being written to commit before it gives up (ingest waits meanwhile). */
const HOLD_MAX_MS = 2000;

interface Holdable {
  hold(): Promise<void>;
  release(): void;
}

/**
 * Starts the recommender threads' snapshot rounds every INDEX_SNAPSHOT_INTERVAL_S (docs/operations.md,
 * Snapshots). A snapshot must hold exactly the events committed before its position: so the batcher is held
 * (no batch leaves) until none is being written, every committed one having been published to the threads;
 * then pg_current_snapshot() is the position, the round's message follows those batches to each thread, and
 * the batcher is released. Ingest requests wait that long (one batch's commit, a query), once a round; the
 * copying and storing happen in the threads after. With CLUSTER=1 the other processes' batches committed before
 * the position are read from the batch log and published too before the message; those read with them that
 * committed after it are named in the snapshot (`extra_xids`), the thread knowing each one's transaction.
 */
export class SnapshotTrigger {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly batcher: Holdable,
    private readonly recommender: { snapshot(position: string, takenAtS: number, fresh: number[], orgs: number[]): void },
    private readonly intervalMs: number,
    /** CLUSTER=1: resolves once every other process's batch committed before the call is published (src/cluster/batchFeed.ts). */
    private readonly catchUp?: () => Promise<void>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.round(), this.intervalMs);
    this.timer.unref();
  }

  /** One round now (tests and benchmarks call it rather than wait for the interval). */
  round(): Promise<void> {
    this.running ??= this.take()
      .catch((err: Error) => log.warn("index snapshot round skipped", { error: err.message }))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async take(): Promise<void> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const idle = await Promise.race([
        this.batcher.hold().then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), HOLD_MAX_MS))),
      ]);
      if (!idle) throw new Error(`the batches being written did not commit within ${HOLD_MAX_MS} ms`);
      const { rows } = await this.pool.query<{ s: string; t: number }>(
        "SELECT pg_current_snapshot()::text AS s, extract(epoch FROM now())::float8 AS t",
      );
      await this.catchUp?.();
      // With CLUSTER=1 every process holds every organisation: one stored within half an interval (by another) is skipped.
      const fresh = this.catchUp
        ? (
            await this.pool.query<{ org: number }>(
              "SELECT DISTINCT org FROM org_index_snapshots WHERE taken_at > now() - make_interval(secs => $1)",
              [this.intervalMs / 2000],
            )
          ).rows.map((r) => r.org)
        : [];
      const orgs = (await this.pool.query<{ seq: number }>("SELECT seq FROM organisations")).rows.map((r) => r.seq);
      this.recommender.snapshot(rows[0]!.s, rows[0]!.t, fresh, orgs);
    } finally {
      clearTimeout(timer);
      this.batcher.release();
    }
    log.debug("index snapshot round started", { heldMs: Math.round(performance.now() - started) });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
