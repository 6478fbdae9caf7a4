import { createHash } from "node:crypto";
import type pg from "pg";
import { appError } from "../errors.js";
import { query } from "../db/transaction.js";

export interface ThrottlePolicy {
  max: number;
  windowS: number;
}

/** A fixed-size key; the same for an email with an account and one without, so a 429 tells nothing about either. */
const keyOf = (email: string) => createHash("sha256").update(email).digest();

const PRUNE_EVERY = 1000;

/**
 * Password guesses per email, whatever the client address (the per-IP limit stops one address; this stops many
 * addresses guessing one account). Counted in PostgreSQL, so every process of a cluster sees one count.
 * Each attempt reserves a failure before its password is checked, so that concurrent guesses cannot all pass
 * a count read before any of them failed; a right password gives its reservation back.
 */
export class LoginThrottle {
  private attempts = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly policy: ThrottlePolicy,
  ) {}

  /** Counts an attempt for `email`; 429 `rate_limited` when its window already holds `max` failures. */
  async attempt(email: string): Promise<void> {
    const { max, windowS } = this.policy;
    if (++this.attempts % PRUNE_EVERY === 0) await this.prune();
    // The count stops at max + 1: a flood against one email keeps it locked without growing anything.
    const rows = await query<{ failures: number; reset_s: number }>(
      this.pool,
      `INSERT INTO login_failures AS f (email_digest, window_start, failures) VALUES ($1, now(), 1)
       ON CONFLICT (email_digest) DO UPDATE SET
         failures = CASE WHEN f.window_start > now() - make_interval(secs => $2) THEN LEAST(f.failures + 1, $3 + 1) ELSE 1 END,
         window_start = CASE WHEN f.window_start > now() - make_interval(secs => $2) THEN f.window_start ELSE now() END
       RETURNING failures, ceil(extract(epoch FROM window_start + make_interval(secs => $2) - now()))::int AS reset_s`,
      [keyOf(email), windowS, max],
    );
    if (rows[0].failures > max) {
      throw appError(
        "rate_limited",
        "failedSignIns",
        {},
        {
          "Retry-After": String(Math.max(1, rows[0].reset_s)),
        },
      );
    }
  }

  /** The password was right: this attempt was not a failure. */
  async succeeded(email: string): Promise<void> {
    await query(this.pool, "UPDATE login_failures SET failures = failures - 1 WHERE email_digest = $1 AND failures > 0", [keyOf(email)]);
  }

  /** The email's owner proved it another way (a password reset): its count starts again. */
  async clear(email: string): Promise<void> {
    await query(this.pool, "DELETE FROM login_failures WHERE email_digest = $1", [keyOf(email)]);
  }

  /** Rows whose window ended; attackers trying many emails leave one row each, so they do not stay. */
  private async prune(): Promise<void> {
    await query(this.pool, "DELETE FROM login_failures WHERE window_start <= now() - make_interval(secs => $1)", [this.policy.windowS]);
  }
}
