import { z } from "zod";
import { appError } from "../../errors.js";
import { requireRole } from "../../auth/roles.js";
import { describe } from "../../accounts/registration.js";
import { AuditQuerySchema, listAudit } from "../../accounts/audit.js";
import { generateKeyPair, listKeyPairs, revokeKeyPair } from "../../accounts/keyPairs.js";
import { inviteMember, InviteSchema } from "../../accounts/invitations.js";
import { changeRole, ChangeRoleSchema, listMembers, removeMember } from "../../accounts/members.js";
import { ChangePasswordSchema, changePassword } from "../../accounts/password.js";
import { rateLimitHeaders } from "../../auth/rateLimit.js";
import { authenticateAccount } from "../../accounts/session.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { parseBody, parseQuery } from "./parse.js";

export const PairId = z.uuid();
export const UserId = z.uuid();

/** POST /v1/members per organisation: each sends a mail and keeps a token, so one organisation's burst is bounded. */
async function limitMembersOf(s: Services, orgId: string, ctx: RequestContext): Promise<void> {
  const { MEMBERS_RATE_LIMIT_MAX: max, MEMBERS_RATE_LIMIT_WINDOW_S: windowS } = s.config;
  const r = s.membersLimiter.tryCount(orgId, max, windowS) ?? (await s.membersLimiter.count(orgId, max, windowS));
  ctx.headers.push(...rateLimitHeaders(r));
  if (!r.allowed) {
    throw appError("rate_limited", "memberAdditions", {}, { "Retry-After": String(r.resetS) });
  }
}

/** Dashboard operations (CONTRACT 3), authenticated by the dashboard's bearer token. */
export function accountRoutes(s: Services): Route[] {
  const account = (ctx: Parameters<typeof authenticateAccount>[2]) => authenticateAccount(s.pool, s.tokens, ctx);
  return [
    {
      method: "GET",
      pattern: "/v1/me",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "current account", data: await describe(s.pool, await account(ctx)) }),
    },
    {
      method: "POST",
      pattern: "/v1/keys",
      body: "none",
      handler: async (ctx) => ({
        status: 201,
        message: "key pair generated; store the secret key now, it is not shown again",
        data: await generateKeyPair(s.pool, s.keys, await account(ctx), ctx.ip),
      }),
    },
    {
      method: "GET",
      pattern: "/v1/keys",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "key pairs", data: await listKeyPairs(s.pool, await account(ctx)) }),
    },
    {
      method: "POST",
      pattern: "/v1/keys/:id/revoke",
      body: "none",
      handler: async (ctx) => {
        const who = await account(ctx);
        const id = ctx.params[0];
        if (!PairId.safeParse(id).success) throw appError("not_found", "keyPair", { id });
        return { status: 200, message: "key pair revoked", data: await revokeKeyPair(s.pool, s.keys, who, id, ctx.ip) };
      },
    },
    {
      method: "POST",
      pattern: "/v1/members",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const input = await parseBody(ctx, InviteSchema);
        await limitMembersOf(s, who.orgId, ctx);
        const invites = { pool: s.pool, mailer: s.mailer, ttlS: s.config.INVITATION_TTL_S, pendingMax: s.config.INVITATIONS_PENDING_MAX };
        return { status: 201, message: "invitation sent; the member joins on accepting it", data: await inviteMember(invites, who, input, ctx.ip) };
      },
    },
    {
      method: "GET",
      pattern: "/v1/members",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "members", data: await listMembers(s.pool, await account(ctx)) }),
    },
    {
      method: "PATCH",
      pattern: "/v1/members/:id",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const id = ctx.params[0];
        const { role } = await parseBody(ctx, ChangeRoleSchema);
        if (!UserId.safeParse(id).success) throw appError("not_found", "member", { id });
        return { status: 200, message: "role changed", data: await changeRole(s.pool, who, id, role, ctx.ip) };
      },
    },
    {
      method: "DELETE",
      pattern: "/v1/members/:id",
      body: "none",
      handler: async (ctx) => {
        const who = await account(ctx);
        const id = ctx.params[0];
        if (!UserId.safeParse(id).success) throw appError("not_found", "member", { id });
        return { status: 200, message: "member removed; their sessions have ended", data: await removeMember(s.pool, who, id, ctx.ip) };
      },
    },
    {
      method: "POST",
      pattern: "/v1/me/password",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const input = await parseBody(ctx, ChangePasswordSchema);
        await changePassword({ pool: s.pool, passwords: s.passwords, throttle: s.loginThrottle }, who, input, ctx.ip);
        return { status: 200, message: "password changed; every other session has ended, this one goes on", data: null };
      },
    },
    {
      method: "GET",
      pattern: "/v1/audit-log",
      body: "none",
      handler: async (ctx) => {
        const who = await account(ctx);
        requireRole(who.role, ["OWNER", "ADMIN"], "read the audit log");
        return { status: 200, message: "audit log", data: await listAudit(s.pool, who.orgId, parseQuery(ctx, AuditQuerySchema)) };
      },
    },
  ];
}
