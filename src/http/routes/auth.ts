import { AppError } from "../../errors.js";
import { rateLimitHeaders } from "../../auth/rateLimit.js";
import { clearedSessionCookie, sessionCookie } from "../../auth/sessionCookie.js";
import { login, LoginSchema, register, RegisterSchema } from "../../accounts/registration.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { parseBody } from "./parse.js";

/** `/auth/register` and `/auth/login`: 10 requests per 15 minutes per client IP (spec 8). */
async function limitByIp(s: Services, ctx: RequestContext): Promise<void> {
  const { AUTH_RATE_LIMIT_MAX: max, AUTH_RATE_LIMIT_WINDOW_S: windowS } = s.config;
  const ip = ctx.ip;
  const r = s.authLimiter.tryCount(ip, max, windowS) ?? (await s.authLimiter.count(ip, max, windowS));
  ctx.headers.push(...rateLimitHeaders(r));
  if (!r.allowed) {
    throw new AppError("rate_limited", "too many sign-in attempts from this address; retry later", { "Retry-After": String(r.resetS) });
  }
}

export function authRoutes(s: Services): Route[] {
  return [
    {
      method: "POST",
      pattern: "/auth/register",
      body: "json",
      handler: async (ctx) => {
        await limitByIp(s, ctx);
        const input = await parseBody(ctx, RegisterSchema);
        const data = await register(s.pool, s.tokens, input);
        ctx.headers.push(["set-cookie", sessionCookie(data.token, s.config.COOKIE_SECURE)]);
        return { status: 201, message: "organisation registered", data };
      },
    },
    {
      method: "POST",
      pattern: "/auth/login",
      body: "json",
      handler: async (ctx) => {
        await limitByIp(s, ctx);
        const input = await parseBody(ctx, LoginSchema);
        const data = await login(s.pool, s.tokens, input, ctx.ip);
        ctx.headers.push(["set-cookie", sessionCookie(data.token, s.config.COOKIE_SECURE)]);
        return { status: 200, message: "logged in", data };
      },
    },
    {
      // The web dashboard's sign-out: the browser forgets the session cookie (tokens themselves expire).
      method: "POST",
      pattern: "/auth/logout",
      body: "none",
      handler: (ctx) => {
        ctx.headers.push(["set-cookie", clearedSessionCookie(s.config.COOKIE_SECURE)]);
        return { status: 200, message: "logged out", data: null };
      },
    },
  ];
}
