import type pg from "pg";
import { z } from "zod";
import { KEY_CHANNEL, ORG_NOTICE, type KeyCache } from "../auth/keyCache.js";
import type { LimitPolicy } from "../auth/rateLimit.js";
import { requireRole, type Role } from "../auth/roles.js";
import { inTransaction, query } from "../db/transaction.js";
import { recordAudit } from "./audit.js";
import type { Account } from "./session.js";

const MANAGERS: readonly Role[] = ["OWNER", "ADMIN"];

/**
 * The bounds an organisation may choose within. The limit protects the organisation from someone spending its
 * publishable key (public by design) and the service from one organisation: a window of a minute at least and a
 * million requests at most keep the fastest allowed rate under 17,000 requests a second, a day at most keeps a
 * burst after a quiet day bounded too.
 */
export const RATE_LIMIT_BOUNDS = { maxMin: 1, maxMax: 1_000_000, windowMinS: 60, windowMaxS: 86_400 } as const;

export const RateLimitSchema = z
  .strictObject({
    rate_limit_max: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The organisation's own number of API-key requests per window; null: the service's (`RATE_LIMIT_MAX`)." }),
    rate_limit_window_s: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The organisation's own window in seconds; null: the service's (`RATE_LIMIT_WINDOW_S`)." }),
    service_max: z.number().int().meta({ description: "The service's default requests per window (`RATE_LIMIT_MAX`)." }),
    service_window_s: z.number().int().meta({ description: "The service's default window in seconds (`RATE_LIMIT_WINDOW_S`)." }),
    effective_max: z.number().int().meta({ description: "The limit that applies: the organisation's, else the service's." }),
    effective_window_s: z.number().int(),
  })
  .meta({ description: "How many requests the organisation's API keys (publishable and secret together) may make per window." });
export type RateLimit = z.infer<typeof RateLimitSchema>;

const { maxMin, maxMax, windowMinS, windowMaxS } = RATE_LIMIT_BOUNDS;
export const SetRateLimitSchema = z
  .strictObject({
    rate_limit_max: z
      .number()
      .int()
      .min(maxMin, `must be at least ${maxMin}`)
      .max(maxMax, `must be at most ${maxMax.toLocaleString("en")}`)
      .nullable(),
    rate_limit_window_s: z
      .number()
      .int()
      .min(windowMinS, `must be at least ${windowMinS} seconds`)
      .max(windowMaxS, `must be at most ${windowMaxS.toLocaleString("en")} seconds (a day)`)
      .nullable(),
  })
  .meta({
    description: `Sets the organisation's rate limit: ${maxMin} to ${maxMax.toLocaleString("en")} requests per window of ${windowMinS} to ${windowMaxS.toLocaleString("en")} seconds; null for either takes the service's.`,
    examples: [{ rate_limit_max: 5000, rate_limit_window_s: 900 }],
  });
export type SetRateLimit = z.infer<typeof SetRateLimitSchema>;

interface LimitRow {
  max: number | null;
  window_s: number | null;
}

function shown(row: LimitRow, service: LimitPolicy): RateLimit {
  return {
    rate_limit_max: row.max,
    rate_limit_window_s: row.window_s,
    service_max: service.max,
    service_window_s: service.windowS,
    effective_max: row.max ?? service.max,
    effective_window_s: row.window_s ?? service.windowS,
  };
}

const SELECT_LIMIT = "SELECT rate_limit_max AS max, rate_limit_window_s AS window_s FROM organisations WHERE id = $1";

export async function getRateLimit(pool: pg.Pool, account: Account, service: LimitPolicy): Promise<RateLimit> {
  requireRole(account.role, MANAGERS, "read the rate limit");
  const rows = await query<LimitRow>(pool, SELECT_LIMIT, [account.orgId]);
  return shown(rows[0]!, service);
}

/**
 * Every process's key cache carries the limit (src/auth/keyCache.ts): the NOTIFY sent with the commit reaches the
 * others within a second, and this one's cache is refreshed before the answer. The next request of the
 * organisation's keys counts against the new limit (what the current window counted so far still counts).
 */
export async function setRateLimit(
  pool: pg.Pool,
  cache: KeyCache,
  account: Account,
  wanted: SetRateLimit,
  service: LimitPolicy,
  ip: string,
): Promise<RateLimit> {
  requireRole(account.role, MANAGERS, "change the rate limit");
  const row: LimitRow = { max: wanted.rate_limit_max, window_s: wanted.rate_limit_window_s };
  const changed = await inTransaction(pool, async (c) => {
    const before = (await c.query<LimitRow>(`${SELECT_LIMIT} FOR UPDATE`, [account.orgId])).rows[0]!;
    if (before.max === row.max && before.window_s === row.window_s) return false;
    await c.query("UPDATE organisations SET rate_limit_max = $2, rate_limit_window_s = $3 WHERE id = $1", [account.orgId, row.max, row.window_s]);
    const target = `rate_limit=${row.max ?? "service"};w=${row.window_s ?? "service"}`;
    await recordAudit(c, account, { action: "rate_limit.changed", target, ip });
    await c.query("SELECT pg_notify($1, $2)", [KEY_CHANNEL, `${ORG_NOTICE}:${account.orgId}`]);
    return true;
  });
  if (changed) await cache.refreshOrg(account.orgId);
  return shown(row, service);
}
