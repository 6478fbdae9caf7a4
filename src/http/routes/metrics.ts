import { createHash, timingSafeEqual } from "node:crypto";
import { bearerToken } from "../../auth/tokens.js";
import { appError } from "../../errors.js";
import { registry } from "../../metrics/registry.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import { sendStatic } from "../respond.js";
import { ANSWERS_LATER, type Outcome, type Route } from "../router.js";

/** A scrape is always fresh and never read as a page. */
const SCRAPE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["cache-control", "no-store"],
  ["x-content-type-options", "nosniff"],
];

/** Answers with every metric in Prometheus' text format (0.0.4). */
export async function answerScrape(ctx: RequestContext): Promise<void> {
  const text = await registry.metrics();
  sendStatic(ctx, registry.contentType, Buffer.from(text), SCRAPE_HEADERS);
}

/** Digests have one length whatever was sent, so comparing them tells nothing of the token's length either. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/**
 * GET /metrics on the service's port, only for `Authorization: Bearer <METRICS_TOKEN>`; without the setting the
 * path is not routed at all (404 like any unknown path). The token-free listener is http/metricsServer.ts.
 */
export function metricsRoutes(s: Services): Route[] {
  const token = s.config.METRICS_TOKEN;
  if (token === undefined) return [];
  const expected = digest(token);
  return [
    {
      method: "GET",
      pattern: "/metrics",
      body: "none",
      handler: async (ctx): Promise<Outcome> => {
        if (!timingSafeEqual(digest(bearerToken(ctx.authorization)), expected)) {
          throw appError("invalid_token", "metrics");
        }
        await answerScrape(ctx);
        return ANSWERS_LATER;
      },
    },
  ];
}
