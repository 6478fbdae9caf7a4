import { randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
import type { PasswordHasher } from "../auth/passwords.js";
import type { TokenSigner } from "../auth/tokens.js";
import { RoleSchema, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { LoginThrottle } from "./loginThrottle.js";
import type { Account } from "./session.js";
import { startSession } from "./sessionStore.js";

export const Email = z.string().trim().toLowerCase().max(254, "must be at most 254 characters").email("must be an email address");
export const PASSWORD_MIN = 10;
export const Password = z.string().min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`).max(1024);

export const RegisterSchema = z.strictObject({
  email: Email,
  password: Password,
  organisation: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters"),
});
export const LoginSchema = z.strictObject({
  email: Email,
  password: z.string().max(1024),
  organisation_id: z
    .uuid()
    .optional()
    .meta({
      description:
        "Which organisation to sign in to, for an email with accounts in several. Without it, the account the password " +
        "matches that signed in most recently.",
    }),
});

export type RegisterInput = z.infer<typeof RegisterSchema>;
export type LoginInput = z.infer<typeof LoginSchema>;

const SessionUserSchema = z.strictObject({ id: z.uuid(), email: z.string(), role: RoleSchema });

export const SessionDataSchema = z
  .strictObject({
    token: z.string().meta({ description: "The dashboard token (HS256 JWT, valid 12 hours): send it as `Authorization: Bearer <token>`." }),
    user: SessionUserSchema,
    organisation: z.strictObject({
      id: z.uuid().meta({ description: "The organisation's id: `tenant_id` in recommend answers." }),
      name: z.string(),
    }),
  })
  .meta({ description: "A signed-in session: the token, the account and its organisation." });
export type SessionData = z.infer<typeof SessionDataSchema>;

/** GET /v1/me: the account behind the token (its role as it stands now) and its organisation. */
export const CurrentAccountSchema = z.strictObject({
  user: SessionUserSchema,
  organisation: z.strictObject({ id: z.uuid(), name: z.string().nullable() }),
});
export type CurrentAccount = z.infer<typeof CurrentAccountSchema>;

/** What signing in needs: the database, the token signer, the bounded password hasher and the session cap. */
export interface SignIn {
  pool: pg.Pool;
  tokens: TokenSigner;
  passwords: PasswordHasher;
  sessionsMax: number;
}

/**
 * Creates the organisation and its OWNER. An email may have accounts in several organisations, so registering
 * with one that is taken creates another account, as for a new email: the answer never says which emails exist.
 */
export async function register(deps: SignIn, input: RegisterInput, ip: string): Promise<SessionData> {
  // Hashed before a connection is taken: the pool is never held while scrypt runs.
  const passwordHash = await deps.passwords.hash(input.password, await emailSalt(deps.pool, input.email));
  const orgId = randomUUID();
  const userId = randomUUID();
  const sessionId = await inTransaction(deps.pool, async (c) => {
    await c.query("INSERT INTO organisations (id, name) VALUES ($1, $2)", [orgId, input.organisation]);
    await c.query("INSERT INTO accounts (id, org_id, email, password_hash, role, signed_in_at) VALUES ($1, $2, $3, $4, 'OWNER', now())", [
      userId,
      orgId,
      input.email,
      passwordHash,
    ]);
    await recordAudit(c, { userId, orgId, email: input.email }, { action: "organisation.created", target: input.organisation, ip });
    return startSession(c, userId, deps.sessionsMax);
  });
  return session(deps.tokens, { userId, orgId, email: input.email, role: "OWNER", sessionId }, input.organisation);
}

/**
 * A hash of one of the email's accounts, whose salt a new hash for the email takes (src/auth/passwords.ts): sign-in
 * then checks a password against all the email's accounts with one scrypt.
 */
export async function emailSalt(pool: pg.Pool, email: string): Promise<string | undefined> {
  const rows = await query<{ password_hash: string }>(pool, "SELECT password_hash FROM accounts WHERE email = $1 ORDER BY created_at LIMIT 1", [
    email,
  ]);
  return rows[0]?.password_hash;
}

/** The accounts sign-in looks at for one email; one further back is reached by naming its organisation. */
const LOGIN_ACCOUNTS_MAX = 50;

interface LoginRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  password_hash: string;
  name: string;
}

/**
 * The same answer, after the same work, whether the email or the password is wrong; and, past the email's
 * failure limit, the same 429 whether it has an account or not. The email's accounts share a salt, so one scrypt
 * checks the password against all of them; the most recently signed-in account it matches wins.
 */
export async function login(deps: SignIn & { throttle: LoginThrottle }, input: LoginInput, ip: string): Promise<SessionData> {
  await deps.throttle.attempt(input.email);
  const rows = await query<LoginRow>(
    deps.pool,
    `SELECT a.id, a.org_id, a.email, a.role, a.password_hash, o.name
     FROM accounts a JOIN organisations o ON o.id = a.org_id
     WHERE a.email = $1 AND ($2::uuid IS NULL OR a.org_id = $2)
     ORDER BY a.signed_in_at DESC NULLS LAST, a.created_at DESC LIMIT ${LOGIN_ACCOUNTS_MAX}`,
    [input.email, input.organisation_id ?? null],
  );
  const matched = await deps.passwords.firstMatch(
    input.password,
    rows.map((r) => r.password_hash),
  );
  const row = rows[matched];
  if (!row) throw appError("invalid_credentials", "login");
  await deps.throttle.succeeded(input.email);
  const sessionId = await inTransaction(deps.pool, async (c) => {
    await c.query("UPDATE accounts SET signed_in_at = now() WHERE id = $1", [row.id]);
    await recordAudit(c, { userId: row.id, orgId: row.org_id, email: row.email }, { action: "auth.login", target: row.email, ip });
    return startSession(c, row.id, deps.sessionsMax);
  });
  return session(deps.tokens, { userId: row.id, orgId: row.org_id, email: row.email, role: row.role, sessionId }, row.name);
}

export async function describe(pool: pg.Pool, account: Account): Promise<CurrentAccount> {
  const rows = await query<{ name: string; created_at: Date }>(pool, "SELECT name, created_at FROM organisations WHERE id = $1", [account.orgId]);
  return {
    user: { id: account.userId, email: account.email, role: account.role },
    organisation: { id: account.orgId, name: rows[0]?.name ?? null },
  };
}

export function session(tokens: TokenSigner, account: Account, orgName: string): SessionData {
  return {
    token: tokens.sign(account),
    user: { id: account.userId, email: account.email, role: account.role },
    organisation: { id: account.orgId, name: orgName },
  };
}
