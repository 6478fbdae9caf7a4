import { RoleSchema, type Role } from "../../auth/roles.js";
import { appError } from "../../errors.js";
import { createRule, deleteRule, listRules, updateRule } from "../../rules/rules.js";
import { RuleBodySchema, RuleIdSchema } from "../../rules/schema.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { orgCaller } from "./orgCaller.js";
import { parseBody } from "./parse.js";

const EDITORS: readonly Role[] = ["OWNER", "ADMIN", "DEVELOPER"];
const caller = (s: Services, ctx: RequestContext, action: string) => orgCaller(s, ctx, EDITORS, action);

function ruleId(ctx: RequestContext): string {
  const id = ctx.params[0]!;
  if (!RuleIdSchema.safeParse(id).success) throw appError("not_found", "rule", { id });
  return id;
}

/**
 * GET/POST /v1/rules, PUT/DELETE /v1/rules/{rule_id} (CONTRACT 7, README Rules). A change reaches this process's
 * recommender threads before it is answered, the other processes' within a second (src/rules/ruleFeed.ts).
 */
export function ruleRoutes(s: Services): Route[] {
  return [
    {
      method: "GET",
      pattern: "/v1/rules",
      body: "none",
      handler: async (ctx) => {
        // Any member reads them (the dashboard's Rules page, read-only for a MEMBER); changing them takes EDITORS.
        const who = await orgCaller(s, ctx, RoleSchema.options, "read rules");
        const rules = await listRules(s.pool, who.org);
        return { status: 200, message: `${rules.length} rules`, data: { rules, max: s.config.RULES_MAX } };
      },
    },
    {
      method: "POST",
      pattern: "/v1/rules",
      body: "json",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "change rules");
        const body = await parseBody(ctx, RuleBodySchema);
        const rule = await createRule(s.pool, who, body, s.config.RULES_MAX, s.origin);
        await s.rules.changed(who.org);
        return { status: 201, message: "rule created", data: rule };
      },
    },
    {
      method: "PUT",
      pattern: "/v1/rules/:rule_id",
      body: "json",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "change rules");
        const id = ruleId(ctx);
        const body = await parseBody(ctx, RuleBodySchema);
        const rule = await updateRule(s.pool, who, id, body, s.origin);
        await s.rules.changed(who.org);
        return { status: 200, message: "rule updated", data: rule };
      },
    },
    {
      method: "DELETE",
      pattern: "/v1/rules/:rule_id",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "change rules");
        const rule = await deleteRule(s.pool, who, ruleId(ctx), s.origin);
        await s.rules.changed(who.org);
        return { status: 200, message: "rule deleted", data: rule };
      },
    },
  ];
}
