import { appError } from "../errors.js";
import type { RequestContext } from "../http/context.js";
import type { KeyCache, KeyEntry } from "./keyCache.js";
import { keyTypeOf, type KeyType } from "./keys.js";
import type { LimitPolicy, LimitResult, Limiter } from "./rateLimit.js";

export interface ApiKeyAuth {
  /** Identifies the caller's organisation, enforces key type and counts the request against its limit. */
  authenticate(ctx: RequestContext, required: KeyType): Promise<KeyEntry>;
  /**
   * The same, at once, for a key already seen by this process; undefined when the key must first be looked up
   * (then call authenticate). Throws exactly what authenticate would reject with.
   */
  authenticateKnown(ctx: RequestContext, required: KeyType): KeyEntry | undefined;
}

/** Bounded like the key cache's own memory of keys; only keys that exist get in. */
const SEEN_MAX = 100_000;

export function createApiKeyAuth(cache: KeyCache, limiter: Limiter, defaults: LimitPolicy): ApiKeyAuth {
  /**
   * Key → the key cache's entry, so that a known key needs no promise. The cache updates its entries in place
   * (revocation, limits), so holding them here sees every change.
   */
  const seen = new Map<string, KeyEntry>();

  function presented(ctx: RequestContext): string {
    const key = ctx.apiKey;
    if (!key) throw appError("missing_api_key", "header");
    if (!keyTypeOf(key)) throw appError("invalid_api_key", "prefix");
    return key;
  }

  function valid(entry: KeyEntry | undefined): KeyEntry {
    if (!entry) throw appError("invalid_api_key", "unknown");
    if (entry.revoked) throw appError("revoked_api_key", "revoked");
    return entry;
  }

  function admit(ctx: RequestContext, entry: KeyEntry, result: LimitResult, required: KeyType): KeyEntry {
    ctx.rateLimit = result;
    if (!result.allowed) {
      throw appError(
        "rate_limited",
        "apiKey",
        {},
        {
          "Retry-After": String(result.resetS),
        },
      );
    }
    if (entry.type !== required) throw appError("wrong_key_type", required);
    return entry;
  }

  return {
    async authenticate(ctx, required) {
      const key = presented(ctx);
      const entry = seen.get(key) ?? (await cache.lookup(key));
      if (entry && !seen.has(key)) {
        if (seen.size >= SEEN_MAX) seen.clear();
        seen.set(key, entry);
      }
      const known = valid(entry);
      const max = known.rateLimitMax ?? defaults.max;
      const windowS = known.rateLimitWindowS ?? defaults.windowS;
      return admit(ctx, known, limiter.tryCount(known.orgSeq, max, windowS) ?? (await limiter.count(known.orgSeq, max, windowS)), required);
    },
    authenticateKnown(ctx, required) {
      const entry = seen.get(presented(ctx));
      if (entry === undefined) return undefined;
      // undefined too when this process holds no quota for the organisation and must ask PostgreSQL (CLUSTER=1).
      const result = limiter.tryCount(valid(entry).orgSeq, entry.rateLimitMax ?? defaults.max, entry.rateLimitWindowS ?? defaults.windowS);
      return result === undefined ? undefined : admit(ctx, entry, result, required);
    },
  };
}
