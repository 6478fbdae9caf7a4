import type { AuditActor, OrgCaller } from "../../accounts/audit.js";
import { authenticateAccount, organisationSeq } from "../../accounts/session.js";
import { requireRole, type Role } from "../../auth/roles.js";
import { appError } from "../../errors.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";

/**
 * The secret key (a server of the organisation), or a dashboard token of an account of one of `roles`. A
 * request with an `X-API-KEY` is judged by its key alone. `action` names what a refused role was trying to do.
 */
export async function orgCaller(s: Services, ctx: RequestContext, roles: readonly Role[], action: string): Promise<OrgCaller> {
  if (ctx.apiKey === undefined && ctx.authorization === undefined && ctx.cookie === undefined) {
    throw appError("missing_api_key", "secretKeyOrAccount", { roles: roleList(roles) });
  }
  if (ctx.apiKey !== undefined) {
    const key = await s.apiKeys.authenticate(ctx, "secret");
    const actor: AuditActor = { orgId: key.orgId, userId: null, email: null };
    return { org: key.orgSeq, actor, via: `the secret key of key pair ${key.keyPairId}`, ip: ctx.ip };
  }
  const who = await authenticateAccount(s.pool, s.tokens, ctx);
  requireRole(who.role, roles, action);
  return { org: await organisationSeq(s.pool, who.orgId), actor: who, via: who.email, ip: ctx.ip };
}

/** "an OWNER or ADMIN", "an OWNER, ADMIN or DEVELOPER". */
function roleList(roles: readonly Role[]): string {
  return `an ${roles.length === 1 ? roles[0] : `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}`}`;
}
