import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { forgetDays } from "../recommend/analyticsCache.js";
import { log } from "../wire/log.js";

export interface ErasureRunnerOptions {
  /** Blocks of a table (8 KiB each) one DELETE scans: ERASURE_CHUNK_BLOCKS. */
  chunkBlocks: number;
  /** How long a claim lasts unless renewed (each chunk renews it); a process that died leaves it then. */
  claimS: number;
  /** How often erasures nobody holds are looked for (another process's that died, or this one's after a restart). */
  sweepMs: number;
  /** Done erasures are forgotten (their counts with them) after this many days: ERASURES_RETENTION_DAYS. */
  retentionDays: number;
}

/**
 * What an erasure deletes after its first transaction, table by table: the rows of its users up to its request
 * (rows sent later are the id's new life, not what was erased). An identify event that names one of them as the
 * previous id goes too: it links them to another person. A table is scanned no sooner than `graceS` after the
 * request, so that rows from before it still on their way are in it by then: a batch being committed, and
 * served rows, which every process writes a fifth of a second at a time (src/recommend/attribution.ts).
 */
const TABLES = [
  {
    table: "events",
    progress: "events_block",
    count: "events",
    match: "(user_id = ANY($2) OR previous_user_id = ANY($2)) AND received_at <= $3",
    graceS: 2,
  },
  { table: "served_recommendations", progress: "served_block", count: "served", match: "user_id = ANY($2) AND served_at <= $3", graceS: 5 },
] as const;

/** How long a done erasure keeps its user ids: the other processes' feeds read them there (src/cluster/erasureFeed.ts). */
const IDS_KEPT_AFTER_DONE = "1 hour";

interface Claimed {
  id: string;
  org: number;
  user_ids: string[];
  requested_at: Date;
  events_block: string;
  served_block: string;
}

/**
 * Deletes the events and served recommendations of pending erasures. Neither table has an index by user (one
 * would cost every ingested row), so each is read by ranges of `chunkBlocks` blocks (a TID range scan, one short
 * transaction a range, with the erasure's progress and counts): a delete never holds a lock or a connection for
 * long, ingestion goes on beside it, and an erasure left by a process that stopped resumes where it was. One
 * erasure at a time per process; the database's claim keeps two processes off the same one.
 */
export class ErasureRunner {
  private readonly claimant = randomUUID();
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Ends a wait for an erasure's grace at shutdown. */
  private readonly stopping = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: ErasureRunnerOptions,
  ) {}

  start(): void {
    this.sweeper = setInterval(() => this.kick(), this.opts.sweepMs);
    this.sweeper.unref();
    this.kick();
  }

  /** Looks for erasures to run now (after a request); a call while one runs makes it look again after. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((err: Error) => log.warn("erasure stopped; it resumes once its claim lapses", { error: err.message }))
      .finally(() => {
        this.running = undefined;
        if (!this.again) return;
        this.again = false;
        this.kick();
      });
  }

  /** Stops after the chunk under way; the erasure it held is released for whoever starts next. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearInterval(this.sweeper);
    await this.running;
  }

  private async drain(): Promise<void> {
    for (let job = await this.claim(); job && !this.stopped; job = await this.claim()) await this.run(job);
    await this.pool.query(`UPDATE erasures SET user_ids = '{}' WHERE done_at < now() - interval '${IDS_KEPT_AFTER_DONE}' AND user_ids <> '{}'`);
    await this.pool.query("DELETE FROM erasures WHERE done_at < now() - make_interval(days => $1)", [this.opts.retentionDays]);
  }

  private async claim(): Promise<Claimed | undefined> {
    const { rows } = await this.pool.query<Claimed>(
      `UPDATE erasures SET claimed_by = $1, claimed_until = now() + make_interval(secs => $2)
       WHERE id = (SELECT id FROM erasures WHERE done_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                   ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id, org, user_ids, requested_at, events_block, served_block`,
      [this.claimant, this.opts.claimS],
    );
    return rows[0];
  }

  private async run(job: Claimed): Promise<void> {
    const started = performance.now();
    for (const t of TABLES) {
      await this.waitUntil(job.requested_at, t.graceS);
      if (this.stopped) return this.release(job.id);
      let block = Number(job[t.progress]);
      let end = await this.blocks(t.table);
      // Rows in flight at the request may land past the end measured first: the table's end is measured once more.
      let measuredAgain = false;
      for (;;) {
        if (block >= end) {
          if (measuredAgain) break;
          measuredAgain = true;
          end = await this.blocks(t.table);
          if (block >= end) break;
        }
        if (this.stopped) return this.release(job.id);
        const to = block + this.opts.chunkBlocks;
        if (!(await this.deleteRange(job, t, block, to))) return; // another process holds it now
        block = to;
      }
    }
    // The analytics' counted days held the erased rows: they are counted again from what is left when read.
    const c = await this.pool.connect();
    try {
      await forgetDays(c, job.org);
    } finally {
      c.release();
    }
    const done = await this.pool.query(
      "UPDATE erasures SET done_at = now(), claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2 RETURNING events, served",
      [job.id, this.claimant],
    );
    const r = done.rows[0] as { events: string; served: string } | undefined;
    if (r)
      log.info("erasure done", {
        erasure: job.id,
        org: job.org,
        users: job.user_ids.length,
        events: Number(r.events),
        served: Number(r.served),
        ms: Math.round(performance.now() - started),
      });
  }

  /** One range of one table, with the erasure's progress, in one transaction. False when the claim was lost. */
  private async deleteRange(job: Claimed, t: (typeof TABLES)[number], from: number, to: number): Promise<boolean> {
    const c = await this.pool.connect();
    let broken = false;
    try {
      await c.query("BEGIN");
      const deleted = await c.query(`DELETE FROM ${t.table} WHERE ctid >= $4::tid AND ctid < $5::tid AND org = $1 AND ${t.match}`, [
        job.org,
        job.user_ids,
        job.requested_at,
        `(${from},0)`,
        `(${to},0)`,
      ]);
      const kept = await c.query(
        `UPDATE erasures SET ${t.progress} = $3, ${t.count} = ${t.count} + $4, claimed_until = now() + make_interval(secs => $5)
         WHERE id = $1 AND claimed_by = $2`,
        [job.id, this.claimant, to, deleted.rowCount ?? 0, this.opts.claimS],
      );
      await c.query(kept.rowCount === 1 ? "COMMIT" : "ROLLBACK");
      return kept.rowCount === 1;
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      c.release(broken);
    }
  }

  /** Waits until `seconds` after `at` on the database's clock (the one that stamped the rows). */
  private async waitUntil(at: Date, seconds: number): Promise<void> {
    const { rows } = await this.pool.query<{ s: number }>(
      "SELECT extract(epoch FROM $1::timestamptz + make_interval(secs => $2) - now())::float8 AS s",
      [at, seconds],
    );
    const ms = rows[0]!.s * 1000;
    if (ms > 0) await sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }

  /** The table's length in blocks; a partitioned one's is its longest partition's (a ctid range applies to each). */
  private async blocks(table: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      `SELECT greatest(pg_relation_size($1::regclass), (SELECT coalesce(max(pg_relation_size(relid)), 0) FROM pg_partition_tree($1::regclass)))
         / current_setting('block_size')::bigint AS n`,
      [table],
    );
    return Number(rows[0]!.n);
  }

  private async release(id: string): Promise<void> {
    await this.pool.query("UPDATE erasures SET claimed_by = NULL, claimed_until = NULL WHERE id = $1 AND claimed_by = $2", [id, this.claimant]);
  }
}
