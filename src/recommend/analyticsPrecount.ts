import type pg from "pg";
import { Rounds } from "../db/rounds.js";
import { log } from "../wire/log.js";
import { fillDays, settledDays } from "./analyticsCache.js";

/** One process at a time counts ahead (CLUSTER=1 runs several on one database); the others skip that round. */
const PRECOUNT_LOCK = 727_040;
const DAY_MS = 86_400_000;
/** How far back a read may ask (a `day` range of at most 400 days): nothing older is counted ahead. */
const DAYS_BACK = 400;
/** Days one fill counts at once, newest first: a transaction of seconds at most, even for a busy organisation. */
const CHUNK_DAYS = 31;

export interface PrecountReport {
  /** Organisations that had whole days not counted yet. */
  organisations: number;
  /** Fills run (each up to CHUNK_DAYS days of one organisation). */
  fills: number;
  /** True when the round stopped at its budget with days still to count (the next round goes on). */
  unfinished: boolean;
}

/**
 * Counts the whole days the analytics over time keep (analyticsCache.ts) before anyone asks for them: for each
 * organisation, the days that are over since it was created (at most DAYS_BACK ago) and not counted yet,
 * newest first, a month at a time, until `budgetMs` has passed; the next round goes on where this one stopped.
 * A read then finds a year already counted instead of counting it (seconds at the benchmark's size), except
 * within a round or two of a large backfill. Kept days that a late click made stale are left to the reads,
 * which count them again (a few days each). Returns undefined when another process holds the round.
 */
export async function precountDays(pool: pg.Pool, budgetMs: number, now = Date.now()): Promise<PrecountReport | undefined> {
  const lock = await pool.connect();
  try {
    const { rows: held } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [PRECOUNT_LOCK]);
    if (!held[0]!.ok) return undefined;
    try {
      return await precountRound(pool, budgetMs, now);
    } finally {
      await lock.query("SELECT pg_advisory_unlock($1)", [PRECOUNT_LOCK]);
    }
  } finally {
    lock.release();
  }
}

async function precountRound(pool: pg.Pool, budgetMs: number, now: number): Promise<PrecountReport> {
  const started = performance.now();
  const earliest = now - DAYS_BACK * DAY_MS;
  const since = new Date(earliest).toISOString().slice(0, 10);
  // Per organisation, how many of its days are counted: one whose count falls short of its days that are over has work.
  const { rows: orgs } = await pool.query<{ seq: number; created: Date; counted: number }>(
    `SELECT o.seq, o.created_at AS created,
            (SELECT count(*)::int FROM analytics_days d WHERE d.org = o.seq AND d.day >= $1::date AND d.events_counted AND d.served_as_of IS NOT NULL) AS counted
     FROM organisations o ORDER BY o.seq`,
    [since],
  );
  const report: PrecountReport = { organisations: 0, fills: 0, unfinished: false };
  for (const org of orgs) {
    const days = settledDays(new Date(Math.max(earliest, org.created.getTime())), new Date(now), now);
    if (!days || org.counted >= (days.end - days.start) / DAY_MS) continue;
    const { rows } = await pool.query<{ day: string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM analytics_days
       WHERE org = $1 AND day >= $2::date AND events_counted AND served_as_of IS NOT NULL`,
      [org.seq, since],
    );
    const counted = new Set(rows.map((r) => r.day));
    const missing: number[] = [];
    for (let d = days.end - DAY_MS; d >= days.start; d -= DAY_MS) if (!counted.has(new Date(d).toISOString().slice(0, 10))) missing.push(d);
    if (missing.length === 0) continue;
    report.organisations++;
    // Newest first, a chunk at a time: the days a dashboard shows first are counted first.
    for (let k = 0; k < missing.length; k += CHUNK_DAYS) {
      // Past the budget, the round ends; but it counts one chunk whatever the budget, so that rounds always move on.
      if (report.fills > 0 && performance.now() - started >= budgetMs) {
        report.unfinished = true;
        return report;
      }
      const chunk = missing.slice(k, k + CHUNK_DAYS);
      await fillDays(pool, org.seq, { start: chunk.at(-1)!, end: chunk[0]! + DAY_MS }, { served: true });
      report.fills++;
    }
  }
  return report;
}

/** Runs precountDays every `intervalMs` (the first round at once), each within `budgetMs`. */
export class AnalyticsPrecountTask {
  private readonly rounds: Rounds;

  constructor(
    private readonly pool: pg.Pool,
    intervalMs: number,
    private readonly budgetMs: number,
  ) {
    this.rounds = new Rounds("analytics precount", () => this.round(), intervalMs);
  }

  start(): void {
    this.rounds.start();
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }

  private async round(): Promise<void> {
    const started = performance.now();
    const report = await precountDays(this.pool, this.budgetMs);
    if (report && report.fills > 0) log.info("analytics days counted ahead", { ...report, ms: Math.round(performance.now() - started) });
  }
}
