import { AnalyticsQuerySchema, strategyReport } from "../../recommend/analytics.js";
import { authenticateAccount, organisationSeq } from "../../accounts/session.js";
import type { Services } from "../../services.js";
import type { Route } from "../router.js";
import { parseQuery } from "./parse.js";

/** Attribution figures for the dashboard (any role may read them). */
export function analyticsRoutes(s: Services): Route[] {
  return [
    {
      method: "GET",
      pattern: "/v1/analytics/strategies",
      body: "none",
      handler: async (ctx) => {
        const who = await authenticateAccount(s.pool, s.tokens, ctx);
        const report = await strategyReport(s.pool, await organisationSeq(s.pool, who.orgId), parseQuery(ctx, AnalyticsQuerySchema));
        return { status: 200, message: "served recommendations, clicks and conversions per strategy", data: report };
      },
    },
  ];
}
