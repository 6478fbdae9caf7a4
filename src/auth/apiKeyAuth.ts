import { AppError } from "../errors.js";
import type { RequestContext } from "../http/context.js";
import type { KeyCache, KeyEntry } from "./keyCache.js";
import { keyTypeOf, type KeyType } from "./keys.js";
import { rateLimitHeaders, type LimitPolicy, type RateLimiter } from "./rateLimit.js";

export interface ApiKeyAuth {
  /** Identifies the caller's organisation, enforces key type and counts the request against its limit. */
  authenticate(ctx: RequestContext, required: KeyType): Promise<KeyEntry>;
}

const WRONG_TYPE: Record<KeyType, string> = {
  publishable: "this endpoint takes a publishable key (svc_pk_...); a secret key cannot be used here",
  secret: "this endpoint takes a secret key (svc_sk_...); a publishable key cannot be used here",
};

export function createApiKeyAuth(cache: KeyCache, limiter: RateLimiter, defaults: LimitPolicy): ApiKeyAuth {
  return {
    async authenticate(ctx, required) {
      const key = ctx.apiKey;
      if (!key) throw new AppError("missing_api_key", "the X-API-KEY header is required");
      if (!keyTypeOf(key)) throw new AppError("invalid_api_key", "X-API-KEY must start with svc_pk_ or svc_sk_");
      const entry = await cache.lookup(key);
      if (!entry) throw new AppError("invalid_api_key", "the API key is not valid");
      if (entry.revoked) throw new AppError("revoked_api_key", "the API key has been revoked");

      const result = limiter.hit(entry.orgSeq, {
        max: entry.rateLimitMax ?? defaults.max,
        windowS: entry.rateLimitWindowS ?? defaults.windowS,
      });
      ctx.headers.push(...rateLimitHeaders(result));
      if (!result.allowed) {
        throw new AppError("rate_limited", "rate limit reached for this organisation; retry after the window resets", {
          "Retry-After": String(result.resetS),
        });
      }
      if (entry.type !== required) throw new AppError("wrong_key_type", WRONG_TYPE[required]);
      return entry;
    },
  };
}
