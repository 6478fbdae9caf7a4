import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
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
  if (rows.length === 0) throw appError("invalid_token", "accountGone");
  if (!(await deps.passwords.verify(input.old_password, rows[0].password_hash))) {
    throw appError("invalid_credentials", "oldPassword");
  }
  await deps.throttle.succeeded(actor.email);
  const passwordHash = await deps.passwords.hash(input.new_password, rows[0].password_hash);
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

/** An email's accounts a reset mail covers, most recently signed-in first. */
const RESET_ACCOUNTS_MAX = 10;

async function sendReset(deps: { pool: pg.Pool; mailer: Mailer; ttlS: number }, email: string, ip: string): Promise<void> {
  const tokens = await inTransaction(deps.pool, async (c) => {
    const { rows } = await c.query<{ id: string; org_id: string; name: string }>(
      `SELECT a.id, a.org_id, o.name FROM accounts a JOIN organisations o ON o.id = a.org_id WHERE a.email = $1
       ORDER BY a.signed_in_at DESC NULLS LAST, a.created_at DESC LIMIT ${RESET_ACCOUNTS_MAX} FOR UPDATE OF a`,
      [email],
    );
    const issued: Array<{ organisation: string; token: string }> = [];
    for (const account of rows) {
      // One mail a minute per account at most, whoever asks from however many addresses (the row lock orders the askers).
      const recent = await c.query(
        "SELECT 1 FROM account_tokens WHERE purpose = 'password_reset' AND account_id = $1 AND created_at > now() - interval '60 seconds'",
        [account.id],
      );
      if (recent.rows.length > 0) continue;
      const token = await issueToken(c, { purpose: "password_reset", email, accountId: account.id, ttlS: deps.ttlS });
      await recordAudit(c, { userId: account.id, orgId: account.org_id, email }, { action: "auth.password_reset_requested", target: email, ip });
      issued.push({ organisation: account.name, token });
    }
    return issued;
  });
  if (tokens.length === 0) return;
  await deps.mailer.send({
    to: email,
    subject: "Reset your password",
    text:
      `Someone (we hope you) asked to reset the password of this email's accounts, one per organisation. Each token ` +
      `below works once, for ${Math.round(deps.ttlS / 60)} minutes, in the dashboard's reset page or as shown. ` +
      `Ignore this mail if it was not you.\n` +
      tokens.map((t) => `${t.organisation}: POST /auth/password-reset/confirm {"token": "${t.token}", "new_password": "…"}`).join("\n"),
  });
}

/** POST /auth/password-reset/confirm: sets the password, uses the token up and ends every session of the account. */
export async function confirmPasswordReset(deps: PasswordDeps, input: PasswordResetConfirmInput, ip: string): Promise<void> {
  const invalid = () => appError("invalid_token", "resetToken");
  // A bad token is refused before a hash is paid for.
  const grant = await peekToken(deps.pool, "password_reset", input.token);
  if (!grant?.account_id) throw invalid();
  const current = await query<{ password_hash: string }>(deps.pool, "SELECT password_hash FROM accounts WHERE id = $1", [grant.account_id]);
  const passwordHash = await deps.passwords.hash(input.new_password, current[0]?.password_hash);
  const email = await inTransaction(deps.pool, async (c) => {
    const used = await consumeToken(c, "password_reset", input.token);
    if (!used?.account_id) throw invalid();
    const { rows } = await c.query<{ org_id: string }>("UPDATE accounts SET password_hash = $1 WHERE id = $2 RETURNING org_id", [
      passwordHash,
      used.account_id,
    ]);
    if (rows.length === 0) throw invalid();
    await endAllSessions(c, used.account_id);
    await recordAudit(
      c,
      { userId: used.account_id, orgId: rows[0].org_id, email: used.email },
      { action: "auth.password_reset", target: used.email, ip },
    );
    return used.email;
  });
  // Whoever reads the mailbox may sign in again at once, even if guesses had locked the email.
  await deps.throttle.clear(email);
}
