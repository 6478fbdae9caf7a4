import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import type { Role } from "../auth/roles.js";

type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

export type TokenPurpose = "password_reset" | "invitation";

export interface TokenGrant {
  purpose: TokenPurpose;
  email: string;
  ttlS: number;
  accountId?: string;
  orgId?: string;
  role?: Role;
  createdBy?: string;
}

export interface TokenRow {
  account_id: string | null;
  org_id: string | null;
  email: string;
  role: Role | null;
}

/** Only the digest is stored: a read of the table (or a backup) does not hand out working tokens. */
const digestOf = (token: string) => createHash("sha256").update(token).digest();

/** Tokens whose time ran out are deleted a few at a time by whoever issues the next one: the table keeps only live tokens. */
const PRUNE_BATCH = 100;

/**
 * One-time tokens mailed to a person (password resets, invitations): 32 random bytes, valid `ttlS` seconds, good
 * for one use. Issuing a reset replaces the account's earlier one, so an account holds at most one.
 */
export async function issueToken(db: Queryable, grant: TokenGrant): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  await db.query("DELETE FROM account_tokens WHERE digest IN (SELECT digest FROM account_tokens WHERE expires_at <= now() LIMIT $1)", [PRUNE_BATCH]);
  if (grant.purpose === "password_reset" && grant.accountId) {
    await db.query("DELETE FROM account_tokens WHERE purpose = 'password_reset' AND account_id = $1", [grant.accountId]);
  }
  await db.query(
    `INSERT INTO account_tokens (digest, purpose, account_id, org_id, email, role, created_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [
      digestOf(token),
      grant.purpose,
      grant.accountId ?? null,
      grant.orgId ?? null,
      grant.email,
      grant.role ?? null,
      grant.createdBy ?? null,
      grant.ttlS,
    ],
  );
  return token;
}

/** The live token's grant, without using it (to refuse a bad token before paying for a password hash). */
export async function peekToken(db: Queryable, purpose: TokenPurpose, token: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow>(
    "SELECT account_id, org_id, email, role FROM account_tokens WHERE digest = $1 AND purpose = $2 AND expires_at > now()",
    [digestOf(token), purpose],
  );
  return rows[0];
}

/** Uses the token up: of two requests with it, only one gets its grant. */
export async function consumeToken(db: Queryable, purpose: TokenPurpose, token: string): Promise<TokenRow | undefined> {
  const { rows } = await db.query<TokenRow & { live: boolean }>(
    "DELETE FROM account_tokens WHERE digest = $1 AND purpose = $2 RETURNING account_id, org_id, email, role, expires_at > now() AS live",
    [digestOf(token), purpose],
  );
  const row = rows[0];
  return row?.live ? { account_id: row.account_id, org_id: row.org_id, email: row.email, role: row.role } : undefined;
}
