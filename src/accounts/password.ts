import type pg from "pg";
import { z } from "zod";
import { AppError } from "../errors.js";
import type { PasswordHasher } from "../auth/passwords.js";
import { inTransaction, query } from "../db/transaction.js";
import { log } from "../wire/log.js";
import { recordAudit } from "./audit.js";
import type { LoginThrottle } from "./loginThrottle.js";
import type { Mailer } from "./mailer.js";
import { consumeToken, issueToken, peekToken } from "./oneTimeTokens.js";
import { Email, Password } from "./registration.js";
import type { Account } from "./session.js";
import { endAllSessions, endOtherSessions } from "./sessionStore.js";

export const ChangePasswordSchema = z.strictObject({ old_password: z.string().max(1024), new_password: Password });
export const PasswordResetRequestSchema = z.strictObject({ email: Email });
export const PasswordResetConfirmSchema = z.strictObject({ token: z.string().min(1).max(200), new_password: Password });
export type ChangePasswordInput = z.infer<typeof ChangePasswordSchema>;
export type PasswordResetConfirmInput = z.infer<typeof PasswordResetConfirmSchema>;

export interface PasswordDeps {
  pool: pg.Pool;
  passwords: PasswordHasher;
  throttle: LoginThrottle;
}

/**
 * POST /v1/me/password. The old password is a password guess like a sign-in's, so it counts against the email's
 * failure limit (a stolen session cannot try passwords without bound). Every other session of the account ends;
 * the caller's own stays, so its token keeps working.
 */
export async function changePassword(deps: PasswordDeps, actor: Account, input: ChangePasswordInput, ip: string): Promise<void> {
  await deps.throttle.attempt(actor.email);
  const rows = await query<{ password_hash: string }>(deps.pool, "SELECT password_hash FROM accounts WHERE id = $1", [actor.userId]);
  if (rows.length === 0) throw new AppError("invalid_token", "the account behind this token no longer exists");
  if (!(await deps.passwords.verify(input.old_password, rows[0].password_hash))) {
    throw new AppError("invalid_credentials", "the old password is wrong");
  }
  await deps.throttle.succeeded(actor.email);
  const passwordHash = await deps.passwords.hash(input.new_password);
  await inTransaction(deps.pool, async (c) => {
    await c.query("UPDATE accounts SET password_hash = $1 WHERE id = $2", [passwordHash, actor.userId]);
    await endOtherSessions(c, actor.userId, actor.sessionId);
    await recordAudit(c, actor, { action: "auth.password_changed", target: actor.email, ip });
  });
}

/**
 * POST /auth/password-reset: the answer is the same whether the email has an account or not, and is sent before
 * any token is made, so neither its content nor its timing tells which. The mail goes out afterwards; a failure
 * there is logged, as the caller has already been answered.
 */
export function requestPasswordReset(deps: PasswordDeps & { mailer: Mailer; ttlS: number }, email: string, ip: string): void {
  void sendReset(deps, email, ip).catch((err: unknown) => log.error("password reset mail failed", { error: String(err) }));
}

async function sendReset(deps: { pool: pg.Pool; mailer: Mailer; ttlS: number }, email: string, ip: string): Promise<void> {
  const token = await inTransaction(deps.pool, async (c) => {
    const { rows } = await c.query<{ id: string; org_id: string }>("SELECT id, org_id FROM accounts WHERE email = $1 FOR UPDATE", [email]);
    const account = rows[0];
    if (!account) return undefined;
    // One mail a minute per account at most, whoever asks from however many addresses (the row lock orders the askers).
    const recent = await c.query(
      "SELECT 1 FROM account_tokens WHERE purpose = 'password_reset' AND account_id = $1 AND created_at > now() - interval '60 seconds'",
      [account.id],
    );
    if (recent.rows.length > 0) return undefined;
    const issued = await issueToken(c, { purpose: "password_reset", email, accountId: account.id, ttlS: deps.ttlS });
    await recordAudit(c, { userId: account.id, orgId: account.org_id, email }, { action: "auth.password_reset_requested", target: email, ip });
    return issued;
  });
  if (token === undefined) return;
  await deps.mailer.send({
    to: email,
    subject: "Reset your password",
    text:
      `Someone (we hope you) asked to reset this account's password. The token below works once, for ` +
      `${Math.round(deps.ttlS / 60)} minutes: POST /auth/password-reset/confirm {"token": "${token}", "new_password": "…"}, ` +
      `or open the dashboard's reset page. Ignore this mail if it was not you.`,
  });
}

/** POST /auth/password-reset/confirm: sets the password, uses the token up and ends every session of the account. */
export async function confirmPasswordReset(deps: PasswordDeps, input: PasswordResetConfirmInput, ip: string): Promise<void> {
  const invalid = () => new AppError("invalid_token", "this reset token is unknown, used or expired; ask for a new one");
  // A bad token is refused before a hash is paid for.
  if (!(await peekToken(deps.pool, "password_reset", input.token))) throw invalid();
  const passwordHash = await deps.passwords.hash(input.new_password);
  const email = await inTransaction(deps.pool, async (c) => {
    const grant = await consumeToken(c, "password_reset", input.token);
    if (!grant?.account_id) throw invalid();
    const { rows } = await c.query<{ org_id: string }>("UPDATE accounts SET password_hash = $1 WHERE id = $2 RETURNING org_id", [
      passwordHash,
      grant.account_id,
    ]);
    if (rows.length === 0) throw invalid();
    await endAllSessions(c, grant.account_id);
    await recordAudit(
      c,
      { userId: grant.account_id, orgId: rows[0].org_id, email: grant.email },
      { action: "auth.password_reset", target: grant.email, ip },
    );
    return grant.email;
  });
  // Whoever reads the mailbox may sign in again at once, even if guesses had locked the email.
  await deps.throttle.clear(email);
}
