import type pg from "pg";
import { AppError } from "../errors.js";
import type { RequestContext } from "../http/context.js";
import { bearerToken, type TokenSigner } from "../auth/tokens.js";
import type { Role } from "../auth/roles.js";
import { query } from "../db/transaction.js";

export interface Account {
  userId: string;
  orgId: string;
  email: string;
  role: Role;
}

/**
 * Verifies the dashboard token, then reads the account itself, so that a changed role or a removed
 * member takes effect before the token expires. Dashboard calls are rare; this round trip is cheap.
 */
export async function authenticateAccount(pool: pg.Pool, tokens: TokenSigner, ctx: RequestContext): Promise<Account> {
  const claims = tokens.verify(bearerToken(ctx.authorization));
  const rows = await query<{ email: string; role: Role }>(
    pool,
    "SELECT email, role FROM accounts WHERE id = $1 AND org_id = $2",
    [claims.sub, claims.org],
  );
  if (rows.length === 0) throw new AppError("invalid_token", "the account behind this token no longer exists");
  return { userId: claims.sub, orgId: claims.org, email: rows[0].email, role: rows[0].role };
}
