import {
  getIdentityVerification,
  rotateIdentitySecret,
  setIdentityVerification,
  SetIdentityVerificationSchema,
} from "../../accounts/identitySettings.js";
import { getRateLimit, setRateLimit, SetRateLimitSchema } from "../../accounts/rateLimitSettings.js";
import { getRetention, setRetention, setRetentionSchema } from "../../accounts/retentionSettings.js";
import { authenticateAccount } from "../../accounts/session.js";
import type { Services } from "../../services.js";
import type { Route } from "../router.js";
import { parseBody } from "./parse.js";

/** The organisation's settings on the dashboard (OWNER, ADMIN), authenticated by the dashboard's bearer token. */
export function settingsRoutes(s: Services): Route[] {
  const account = (ctx: Parameters<typeof authenticateAccount>[2]) => authenticateAccount(s.pool, s.tokens, ctx);
  const serviceDays = s.config.EVENTS_RETENTION_DAYS;
  const SetRetention = setRetentionSchema(serviceDays);
  const serviceLimit = { max: s.config.RATE_LIMIT_MAX, windowS: s.config.RATE_LIMIT_WINDOW_S };
  return [
    {
      method: "GET",
      pattern: "/v1/settings/rate-limit",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "rate limit", data: await getRateLimit(s.pool, await account(ctx), serviceLimit) }),
    },
    {
      method: "PATCH",
      pattern: "/v1/settings/rate-limit",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const wanted = await parseBody(ctx, SetRateLimitSchema);
        return { status: 200, message: "rate limit set", data: await setRateLimit(s.pool, s.keys, who, wanted, serviceLimit, ctx.ip) };
      },
    },
    {
      method: "GET",
      pattern: "/v1/settings/retention",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "retention", data: await getRetention(s.pool, await account(ctx), serviceDays) }),
    },
    {
      method: "PATCH",
      pattern: "/v1/settings/retention",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const { events_retention_days: days } = await parseBody(ctx, SetRetention);
        return { status: 200, message: "retention set", data: await setRetention(s.pool, who, days, serviceDays, ctx.ip) };
      },
    },
    {
      method: "GET",
      pattern: "/v1/settings/identity-verification",
      body: "none",
      handler: async (ctx) => ({ status: 200, message: "identity verification", data: await getIdentityVerification(s.pool, await account(ctx)) }),
    },
    {
      method: "PATCH",
      pattern: "/v1/settings/identity-verification",
      body: "json",
      handler: async (ctx) => {
        const who = await account(ctx);
        const { enabled } = await parseBody(ctx, SetIdentityVerificationSchema);
        return {
          status: 200,
          message: `identity verification ${enabled ? "on" : "off"}`,
          data: await setIdentityVerification(s.pool, s.keys, who, enabled, ctx.ip),
        };
      },
    },
    {
      method: "POST",
      pattern: "/v1/settings/identity-verification/secret",
      body: "none",
      handler: async (ctx) => ({
        status: 201,
        message: "identity secret generated; store it on your server now, it is not shown again",
        data: await rotateIdentitySecret(s.pool, s.keys, await account(ctx), ctx.ip),
      }),
    },
  ];
}
