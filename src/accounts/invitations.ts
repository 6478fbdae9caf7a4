import { randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { appError } from "../errors.js";
import { requireRole, RoleSchema } from "../auth/roles.js";
import { inTransaction } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Mailer } from "./mailer.js";
import { MANAGERS, requireOwnerFor } from "./members.js";
import { consumeToken, issueToken, peekToken } from "./oneTimeTokens.js";
import { Email, emailSalt, Password, session, type SessionData, type SignIn } from "./registration.js";
import type { Account } from "./session.js";
import { startSession } from "./sessionStore.js";

export const InviteSchema = z.strictObject({ email: Email, role: RoleSchema });
export const AcceptInvitationSchema = z.strictObject({ token: z.string().min(1).max(200), password: Password });
export type InviteInput = z.infer<typeof InviteSchema>;
export type AcceptInvitationInput = z.infer<typeof AcceptInvitationSchema>;

export const InvitationSchema = z
  .strictObject({ email: z.string(), role: RoleSchema, expires_at: z.iso.datetime() })
  .meta({ description: "A pending invitation: the invitee becomes a member when they accept the mailed token." });
export type Invitation = z.infer<typeof InvitationSchema>;

export interface InviteDeps {
  pool: pg.Pool;
  mailer: Mailer;
  ttlS: number;
  pendingMax: number;
}

/**
 * POST /v1/members: an invitation, not an account. The answer is the same whether the email has an account in
 * another organisation or none (nothing is created under that email until its owner accepts), so it tells the
 * inviter nothing about other organisations, and an organisation cannot take an email its owner has not given.
 * Inviting the same email again replaces the earlier invitation.
 */
export async function inviteMember(deps: InviteDeps, actor: Account, input: InviteInput, ip: string): Promise<Invitation> {
  requireRole(actor.role, MANAGERS, "add members");
  requireOwnerFor(actor, [input.role]);
  const { token, expiresAt } = await inTransaction(deps.pool, async (c) => {
    // Invitations of one organisation queue here, so the count of pending ones below holds.
    await c.query("SELECT 1 FROM organisations WHERE id = $1 FOR UPDATE", [actor.orgId]);
    const member = await c.query("SELECT 1 FROM accounts WHERE org_id = $1 AND email = $2", [actor.orgId, input.email]);
    if (member.rows.length > 0) throw appError("conflict", "alreadyMember");
    await c.query("DELETE FROM account_tokens WHERE purpose = 'invitation' AND org_id = $1 AND email = $2", [actor.orgId, input.email]);
    const { rows } = await c.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM account_tokens WHERE purpose = 'invitation' AND org_id = $1 AND expires_at > now()",
      [actor.orgId],
    );
    if (rows[0].n >= deps.pendingMax) {
      throw appError("conflict", "invitationsPending", { max: deps.pendingMax });
    }
    const issued = await issueToken(c, {
      purpose: "invitation",
      email: input.email,
      orgId: actor.orgId,
      role: input.role,
      createdBy: actor.userId,
      ttlS: deps.ttlS,
    });
    await recordAudit(c, actor, { action: "member.invited", target: `${input.email} as ${input.role}`, ip });
    const expiry = await c.query<{ at: Date }>("SELECT now() + make_interval(secs => $1) AS at", [deps.ttlS]);
    return { token: issued, expiresAt: expiry.rows[0].at };
  });
  await deps.mailer.send({
    to: input.email,
    subject: "You are invited to an organisation",
    text:
      `${actor.email} invites you to join their organisation as ${input.role}. The token below works once, until ` +
      `${expiresAt.toISOString()}: POST /auth/invitations/accept {"token": "${token}", "password": "…"} sets your password ` +
      `and signs you in. An account belongs to one organisation: if you have one elsewhere, this makes another.`,
  });
  return { email: input.email, role: input.role, expires_at: expiresAt.toISOString() };
}

/**
 * POST /auth/invitations/accept: creates the account with the invitation's email and role and signs it in. The
 * email may have accounts in other organisations (the new one shares their salt). An organisation holds one
 * invitation per email, and none for a member's email, so the account is new in it.
 */
export async function acceptInvitation(deps: SignIn, input: AcceptInvitationInput, ip: string): Promise<SessionData> {
  const invalid = () => appError("invalid_token", "invitation");
  // A bad token is refused before a hash is paid for.
  const invited = await peekToken(deps.pool, "invitation", input.token);
  if (!invited) throw invalid();
  const passwordHash = await deps.passwords.hash(input.password, await emailSalt(deps.pool, invited.email));
  return inTransaction(deps.pool, async (c) => {
    const grant = await consumeToken(c, "invitation", input.token);
    if (!grant?.org_id || !grant.role) throw invalid();
    const org = await c.query<{ name: string }>("SELECT name FROM organisations WHERE id = $1", [grant.org_id]);
    if (org.rows.length === 0) throw invalid();
    const account: Account = { userId: randomUUID(), orgId: grant.org_id, email: grant.email, role: grant.role, sessionId: "" };
    await c.query("INSERT INTO accounts (id, org_id, email, password_hash, role, signed_in_at) VALUES ($1, $2, $3, $4, $5, now())", [
      account.userId,
      account.orgId,
      account.email,
      passwordHash,
      account.role,
    ]);
    await recordAudit(c, account, { action: "member.joined", target: `${account.email} as ${account.role}`, ip });
    account.sessionId = await startSession(c, account.userId, deps.sessionsMax);
    return session(deps.tokens, account, org.rows[0].name);
  });
}
