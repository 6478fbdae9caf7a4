import { randomUUID } from "node:crypto";
import type pg from "pg";
import { TOKEN_LIFETIME_S } from "../auth/tokens.js";

type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

/**
 * The `sessions` rows behind dashboard tokens. A token works while its row exists (session.ts reads it with the
 * account on every dashboard request, in whichever process), so deleting rows ends sessions everywhere at once.
 */

/** Opens a session for a sign-in; drops the account's expired ones and, past `max`, its oldest. */
export async function startSession(db: Queryable, accountId: string, max: number): Promise<string> {
  const id = randomUUID();
  await db.query(
    "INSERT INTO sessions (id, account_id, created_at, expires_at) VALUES ($1, $2, clock_timestamp(), now() + make_interval(secs => $3))",
    [id, accountId, TOKEN_LIFETIME_S],
  );
  await db.query(
    `DELETE FROM sessions WHERE account_id = $1 AND id <> $3 AND (expires_at <= now() OR id NOT IN (
       SELECT id FROM sessions WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2))`,
    [accountId, max, id],
  );
  return id;
}

export async function endSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query("DELETE FROM sessions WHERE id = $1", [sessionId]);
}

/** Every session of the account but `keep` (the caller's own, after a password change). */
export async function endOtherSessions(db: Queryable, accountId: string, keep: string): Promise<void> {
  await db.query("DELETE FROM sessions WHERE account_id = $1 AND id <> $2", [accountId, keep]);
}

export async function endAllSessions(db: Queryable, accountId: string): Promise<void> {
  await db.query("DELETE FROM sessions WHERE account_id = $1", [accountId]);
}
