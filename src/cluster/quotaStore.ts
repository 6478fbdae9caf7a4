import type pg from "pg";
import { log } from "../wire/log.js";

/**
 * A lease is at most this share of what is left of the window's quota (and at least what the requests waiting
 * for it need, 1 or more). Chunks shrink as the window empties, so that when the quota is all leased a process
 * that stops getting traffic sits on at most about 1.5 / 40 (under 4 %) of the limit: its last chunk, and the
 * next one fetched at half of it. Leases per window grow only with the logarithm of the limit (about 170 for
 * 1,000, 450 for 1,000,000).
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

export interface Lease {
  /** Requests leased to all processes in the window so far, this grant included. */
  used: number;
  /** Requests granted to the caller by this lease; 0 when the window's quota is all leased. */
  granted: number;
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

/** The rate_limit_quota table: leases, and the pruning of windows that have ended. */
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
