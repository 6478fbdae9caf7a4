import { authenticateAccount, organisationSeq } from "../../accounts/session.js";
import { rateLimitHeaders } from "../../auth/rateLimit.js";
import { appError } from "../../errors.js";
import { enrol } from "../../experiments/enrolment.js";
import { toRankRequest } from "../../recommend/schema.js";
import { validateRecommend } from "../../recommend/validate.js";
import type { Services } from "../../services.js";
import { jsonBody } from "../body.js";
import type { Route } from "../router.js";

const utf8 = new TextDecoder();

/**
 * POST /v1/recommend/preview (CONTRACT 7): a dashboard token of any role, the recommend body validated as
 * /v1/recommend validates it, the page that request would get, and why (src/wire/explanation.ts). Nothing is
 * logged as served: no recommendation id, no served row, so the dashboard's tries never count in analytics
 * (nor in an experiment, whose variant for the user still shapes the page and is named as recommend names it).
 */
export function previewRoutes(s: Services): Route[] {
  return [
    {
      method: "POST",
      pattern: "/v1/recommend/preview",
      body: "json",
      handler: async (ctx) => {
        const who = await authenticateAccount(s.pool, s.tokens, ctx);
        const sent = validateRecommend(jsonBody(ctx));
        const org = await organisationSeq(s.pool, who.orgId);
        const { PREVIEW_RATE_LIMIT_MAX: max, PREVIEW_RATE_LIMIT_WINDOW_S: windowS } = s.config;
        const limit = s.previewLimiter.tryCount(org, max, windowS) ?? (await s.previewLimiter.count(org, max, windowS));
        ctx.headers.push(...rateLimitHeaders(limit));
        if (!limit.allowed) throw appError("rate_limited", "previews", {}, { "Retry-After": String(limit.resetS) });
        // The scenario's running experiment shapes the page as it would the user's recommend request.
        const enrolled = enrol(s.experiments.running(org, sent.scenario), sent);
        const body = enrolled?.body ?? sent;
        const req = toRankRequest(org, body);
        const { result, explanation } = await s.recommender.explain(req);
        return {
          status: 200,
          message: `${result.count} recommendations (preview)`,
          data: {
            tenant_id: who.orgId,
            domain: req.itemType ?? "all",
            strategy: req.strategy,
            scenario: body.scenario,
            mode: result.mode,
            results: JSON.parse(utf8.decode(result.results)) as unknown[],
            recommended_items: JSON.parse(utf8.decode(result.items)) as string[],
            pagination: { page: req.page, limit: req.limit, has_next: result.hasNext },
            latency_ms: Math.round((performance.now() - ctx.startedAt) * 1000) / 1000,
            ...(enrolled && { experiment: { id: enrolled.arm.enrolment.experimentId, variant: enrolled.arm.enrolment.variant } }),
            explanation,
          },
        };
      },
    },
  ];
}
