import { randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { AppError } from "../errors.js";
import { DECOY_HASH, hashPassword, verifyPassword } from "../auth/passwords.js";
import type { TokenSigner } from "../auth/tokens.js";
import { RoleSchema, type Role } from "../auth/roles.js";
import { isUniqueViolation } from "../wire/pgErrors.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Account } from "./session.js";

export const Email = z.string().trim().toLowerCase().max(254).email();
export const PASSWORD_MIN = 10;
export const Password = z.string().min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`).max(1024);

export const RegisterSchema = z.strictObject({
  email: Email,
  password: Password,
  organisation: z.string().trim().min(1).max(200),
});
export const LoginSchema = z.strictObject({ email: Email, password: z.string().max(1024) });

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

export async function register(pool: pg.Pool, tokens: TokenSigner, input: RegisterInput): Promise<SessionData> {
  const passwordHash = await hashPassword(input.password);
  const orgId = randomUUID();
  const userId = randomUUID();
  try {
    await inTransaction(pool, async (c) => {
      await c.query("INSERT INTO organisations (id, name) VALUES ($1, $2)", [orgId, input.organisation]);
      await c.query("INSERT INTO accounts (id, org_id, email, password_hash, role) VALUES ($1, $2, $3, $4, 'OWNER')", [
        userId,
        orgId,
        input.email,
        passwordHash,
      ]);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", "an account with this email already exists");
    throw err;
  }
  return session(tokens, { userId, orgId, email: input.email, role: "OWNER" }, input.organisation);
}

interface LoginRow {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  password_hash: string;
  name: string;
}

/** The same answer, after the same work, whether the email or the password is wrong. */
export async function login(pool: pg.Pool, tokens: TokenSigner, input: LoginInput, ip: string): Promise<SessionData> {
  const rows = await query<LoginRow>(
    pool,
    `SELECT a.id, a.org_id, a.email, a.role, a.password_hash, o.name
     FROM accounts a JOIN organisations o ON o.id = a.org_id WHERE a.email = $1`,
    [input.email],
  );
  const row = rows[0];
  const ok = await verifyPassword(input.password, row?.password_hash ?? DECOY_HASH);
  if (!row || !ok) throw new AppError("invalid_credentials", "wrong email or password");
  const account: Account = { userId: row.id, orgId: row.org_id, email: row.email, role: row.role };
  await recordAudit(pool, account, { action: "auth.login", target: row.email, ip });
  return session(tokens, account, row.name);
}

export async function describe(pool: pg.Pool, account: Account): Promise<CurrentAccount> {
  const rows = await query<{ name: string; created_at: Date }>(pool, "SELECT name, created_at FROM organisations WHERE id = $1", [account.orgId]);
  return {
    user: { id: account.userId, email: account.email, role: account.role },
    organisation: { id: account.orgId, name: rows[0]?.name ?? null },
  };
}

function session(tokens: TokenSigner, account: Account, orgName: string): SessionData {
  return {
    token: tokens.sign(account),
    user: { id: account.userId, email: account.email, role: account.role },
    organisation: { id: account.orgId, name: orgName },
  };
}
