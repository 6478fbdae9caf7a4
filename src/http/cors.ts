import type { RequestContext } from "./context.js";

/**
 * Browsers call the API from customers' pages (events and recommendations with the publishable key), so every
 * origin may call it. Credentials travel in headers (X-API-KEY, Authorization), never in cookies, so `*` lets
 * no page act with a visitor's ambient authority.
 */
const ALLOW_HEADERS = "content-type, x-api-key, authorization";
const EXPOSE_HEADERS = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After";
const PREFLIGHT_MAX_AGE_S = "86400";

export const CORS_ORIGIN: [string, string] = ["access-control-allow-origin", "*"];
export const CORS_EXPOSE: [string, string] = ["access-control-expose-headers", EXPOSE_HEADERS];

/** Answers a preflight for a known path: which methods and headers a cross-origin caller may use. */
export function answerPreflight(ctx: RequestContext, allowed: string[]): void {
  if (ctx.aborted) return;
  ctx.markAnswered(204);
  const { res } = ctx;
  res.cork(() => {
    res.writeStatus("204 No Content");
    res.writeHeader(...CORS_ORIGIN);
    res.writeHeader("access-control-allow-methods", allowed.join(", "));
    res.writeHeader("access-control-allow-headers", ALLOW_HEADERS);
    res.writeHeader("access-control-max-age", PREFLIGHT_MAX_AGE_S);
    res.endWithoutBody();
  });
}
