import { randomUUID } from "node:crypto";
import { toRankRequest } from "../../recommend/schema.js";
import { validateRecommend } from "../../recommend/validate.js";
import type { Services } from "../../services.js";
import { readJson } from "../body.js";
import type { Route } from "../router.js";

/** request → publishable key → validate → shard (msgpackr) → ranked items → response (spec 2.4) */
export function recommendRoutes(s: Services): Route[] {
  return [
    {
      method: "POST",
      pattern: "/v1/recommend",
      body: "json",
      handler: async (ctx) => {
        const started = performance.now();
        const key = await s.apiKeys.authenticate(ctx, "publishable");
        const body = validateRecommend(await readJson(ctx));
        const req = toRankRequest(key.orgSeq, body);
        const ranked = await s.recommender.rank(req);
        const recommendationId = randomUUID();
        const items = ranked.results.map((r) => r.item_id);
        s.attribution.record(recommendationId, req, ranked.mode, items);
        return {
          status: 200,
          message: `${items.length} recommendations`,
          data: {
            recommendation_id: recommendationId,
            tenant_id: key.orgId,
            domain: req.itemType ?? "all",
            strategy: req.strategy,
            mode: ranked.mode,
            results: ranked.results,
            recommended_items: items,
            pagination: { page: req.page, limit: req.limit, has_next: ranked.hasNext },
            latency_ms: Math.round((performance.now() - started) * 1000) / 1000,
          },
        };
      },
    },
  ];
}
