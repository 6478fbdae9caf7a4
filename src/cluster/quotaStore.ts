import type pg from "pg";
import { log } from "../wire/log.js";

/**
 * A lease is at most this share of what is left of the window's quota (and at least what the requests waiting
 * for it need, 1 or more). Chunks shrink as the window empties, so that a process that stops getting traffic
 * holds at most about 1.5 / 40 (under 4 %) of the limit, its last chunk and the next one fetched at half of it,
 * until it gives them back (giveBack). Leases per window grow only with the logarithm of the limit (about 170
 * for 1,000, 450 for 1,000,000).
 */
export const LEASE_SHARE = 40;

/** How much of what is left one lease takes, given the left-over quota as SQL. */
const grant = (left: string) => `GREATEST(0, LEAST(${left}, GREATEST($6::int, CEIL((${left}) / ${LEASE_SHARE}.0)::int)))`;

/**
 * One statement, atomic per row: takes a chunk of the window's quota and never grants past the max, however
 * many processes ask at once. `granted` holds the last grant because RETURNING sees only the new row.
 */
const LEASE = `INSERT INTO rate_limit_quota AS q (org, scope, window_s, window_start, used, granted)
VALUES ($1, $2, $3, $4, ${grant("$5::int")}, ${grant("$5::int")})
ON CONFLICT (org, scope, window_s, window_start) DO UPDATE
SET used = q.used + ${grant("$5::int - q.used")}, granted = ${grant("$5::int - q.used")}
RETURNING used, granted`;

/**
 * One statement, for any number of keys: lowers each row's count by what a process gives back of its own unspent
 * leases. The rows are locked in key order first, so that two processes giving back overlapping keys never
 * deadlock; a row whose count is below what is given back (reset by a PostgreSQL crash, or pruned) is left as
 * it is, so that the count never falls below what the processes admitted.
 */
const GIVE_BACK = `WITH back AS (
  SELECT org, scope, window_s, window_start, sum(n)::int AS n
  FROM unnest($1::int[], $2::text[], $3::int[], $4::bigint[], $5::int[]) AS b(org, scope, window_s, window_start, n)
  GROUP BY 1, 2, 3, 4
), locked AS MATERIALIZED (
  SELECT q.org, q.scope, q.window_s, q.window_start, back.n
  FROM rate_limit_quota q JOIN back USING (org, scope, window_s, window_start)
  ORDER BY 1, 2, 3, 4 FOR UPDATE OF q
)
UPDATE rate_limit_quota AS q SET used = q.used - locked.n
FROM locked
WHERE (q.org, q.scope, q.window_s, q.window_start) = (locked.org, locked.scope, locked.window_s, locked.window_start)
  AND q.used >= locked.n
RETURNING locked.n`;

export interface Lease {
  /** Requests leased to all processes in the window so far, this grant included. */
  used: number;
  /** Requests granted to the caller by this lease; 0 when the window's quota is all leased. */
  granted: number;
}

export interface GivenBack {
  key: QuotaKey;
  /** Leased to the caller and not admitted. */
  tokens: number;
}

export interface QuotaKey {
  org: number;
  scope: string;
  windowS: number;
  /** Epoch seconds, a multiple of windowS. */
  windowStart: number;
}

const INT_MAX = 2 ** 31 - 1;
const PRUNE_EVERY_MS = 60_000;
/** Rows are kept this long past their window's end, so that a process whose clock lags still finds them. */
const PRUNE_AFTER_S = 60;

/** The rate_limit_quota table: leases, what processes give back of them, and the pruning of windows that have ended. */
export class QuotaStore {
  private readonly timer: NodeJS.Timeout;
  private pruning: Promise<void> | undefined;

  constructor(private readonly pool: pg.Pool) {
    this.timer = setInterval(() => {
      this.pruning ??= this.prune().finally(() => (this.pruning = undefined));
    }, PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async lease(k: QuotaKey, max: number, want: number): Promise<Lease> {
    // The counts are PostgreSQL integers; a limit past 2^31 - 1 per window (RATE_LIMIT_MAX has no ceiling) is as good as none.
    const { rows } = await this.pool.query<Lease>(LEASE, [k.org, k.scope, k.windowS, k.windowStart, Math.min(max, INT_MAX), Math.min(want, INT_MAX)]);
    return rows[0];
  }

  /** Gives back unspent leases in one statement; resolves to how many tokens the rows took back. */
  async giveBack(back: GivenBack[]): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(GIVE_BACK, [
      back.map((b) => b.key.org),
      back.map((b) => b.key.scope),
      back.map((b) => b.key.windowS),
      back.map((b) => b.key.windowStart),
      back.map((b) => Math.min(b.tokens, INT_MAX)),
    ]);
    return rows.reduce((sum, r) => sum + r.n, 0);
  }

  /** Deletes the windows that ended; a failure is logged and tried again at the next turn. */
  async prune(nowMs = Date.now()): Promise<void> {
    try {
      await this.pool.query("DELETE FROM rate_limit_quota WHERE window_start + window_s < $1", [Math.floor(nowMs / 1000) - PRUNE_AFTER_S]);
    } catch (err) {
      log.warn("ended rate-limit windows could not be pruned", { error: (err as Error).message });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pruning;
  }
}
