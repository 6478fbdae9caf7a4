import type pg from "pg";
import { AppError, appError } from "../errors.js";
import type { RequestContext } from "../http/context.js";
import { cookieToken, isSameOrigin } from "../auth/sessionCookie.js";
import { bearerToken, type TokenSigner } from "../auth/tokens.js";
import type { Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import { endSession } from "./sessionStore.js";

export interface Account {
  userId: string;
  orgId: string;
  email: string;
  role: Role;
  /** The session the request came with (the token's `sid`). */
  sessionId: string;
}

/**
 * Verifies the dashboard token, then reads its session and the account in one round trip by primary key: a
 * logout, a password change or a removed member ends the session at once in every process, and a changed role
 * takes effect before the token expires. Dashboard calls are rare, so a read per call is cheaper than a cache
 * kept coherent across processes (keyCache.ts's LISTEN/NOTIFY suits API keys, read thousands of times a second).
 */
export async function authenticateAccount(pool: pg.Pool, tokens: TokenSigner, ctx: RequestContext): Promise<Account> {
  const claims = tokens.verify(dashboardToken(ctx));
  const rows = await query<{ email: string; role: Role }>(
    pool,
    `SELECT a.email, a.role FROM sessions s JOIN accounts a ON a.id = s.account_id
     WHERE s.id = $1 AND s.account_id = $2 AND a.org_id = $3 AND s.expires_at > now()`,
    [claims.sid, claims.sub, claims.org],
  );
  if (rows.length === 0) throw appError("invalid_token", "sessionEnded");
  return { userId: claims.sub, orgId: claims.org, email: rows[0].email, role: rows[0].role, sessionId: claims.sid };
}

/** The session a logout ends: undefined when the request carries no token, or one that is not valid anyway. */
function presentedSession(tokens: TokenSigner, ctx: RequestContext): string | undefined {
  try {
    return tokens.verify(dashboardToken(ctx)).sid;
  } catch (err) {
    if (err instanceof AppError && err.code === "invalid_token") return undefined;
    throw err;
  }
}

/** POST /auth/logout: ends the session the request carries, if it still has one, and audits it. */
export async function logout(pool: pg.Pool, tokens: TokenSigner, ctx: RequestContext): Promise<void> {
  const sessionId = presentedSession(tokens, ctx);
  if (sessionId === undefined) return;
  await inTransaction(pool, async (c) => {
    const { rows } = await c.query<{ id: string; org_id: string; email: string }>(
      "SELECT a.id, a.org_id, a.email FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.id = $1",
      [sessionId],
    );
    if (rows.length === 0) return;
    await endSession(c, sessionId);
    await recordAudit(
      c,
      { userId: rows[0].id, orgId: rows[0].org_id, email: rows[0].email },
      { action: "auth.logout", target: rows[0].email, ip: ctx.ip },
    );
  });
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The bearer token, or else the web dashboard's session cookie. A cookie rides along with any request the
 * browser makes, so a change made with one must come from this server's own pages (SameSite=Strict already
 * keeps other sites' requests from carrying it; the Origin check is a second lock).
 */
function dashboardToken(ctx: RequestContext): string {
  if (ctx.authorization) return bearerToken(ctx.authorization);
  const token = cookieToken(ctx.cookie);
  if (!token) throw appError("invalid_token", "sessionMissing");
  if (!SAFE_METHODS.has(ctx.method) && ctx.origin !== undefined && !isSameOrigin(ctx.origin, ctx.host)) {
    throw appError("invalid_token", "cookieOrigin");
  }
  return token;
}

/**
 * The account's organisation's seq, the key every data table is distributed by: a query that names it as a
 * value (not through a subquery on organisations) stays on one node under Citus (docs/scaling.md).
 */
export async function organisationSeq(pool: pg.Pool, orgId: string): Promise<number> {
  const rows = await query<{ seq: number }>(pool, "SELECT seq FROM organisations WHERE id = $1", [orgId]);
  if (rows.length === 0) throw appError("invalid_token", "organisationGone");
  return rows[0].seq;
}
