import type { z } from "zod";
import { appError } from "../../errors.js";
import { rateLimitHeaders } from "../../auth/rateLimit.js";
import { clearedSessionCookie, sessionCookie } from "../../auth/sessionCookie.js";
import { acceptInvitation, AcceptInvitationSchema } from "../../accounts/invitations.js";
import { confirmPasswordReset, PasswordResetConfirmSchema, PasswordResetRequestSchema, requestPasswordReset } from "../../accounts/password.js";
import { login, LoginSchema, register, RegisterSchema, type SessionData } from "../../accounts/registration.js";
import { logout } from "../../accounts/session.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { parseBody } from "./parse.js";

/** `/auth/register`, `/auth/login`, invitations and password resets: 10 requests per 15 minutes per client IP (spec 8). */
async function limitByIp(s: Services, ctx: RequestContext): Promise<void> {
  const { AUTH_RATE_LIMIT_MAX: max, AUTH_RATE_LIMIT_WINDOW_S: windowS } = s.config;
  const ip = ctx.ip;
  const r = s.authLimiter.tryCount(ip, max, windowS) ?? (await s.authLimiter.count(ip, max, windowS));
  ctx.headers.push(...rateLimitHeaders(r));
  if (!r.allowed) {
    throw appError("rate_limited", "signIns", {}, { "Retry-After": String(r.resetS) });
  }
}

/** A route that signs in: limited per client IP, its body parsed, the answer's session also set as the cookie. */
function signingIn<T>(
  s: Services,
  pattern: string,
  schema: z.ZodType<T>,
  status: 200 | 201,
  message: string,
  signIn: (input: T, ctx: RequestContext) => Promise<SessionData>,
): Route {
  return {
    method: "POST",
    pattern,
    body: "json",
    handler: async (ctx) => {
      await limitByIp(s, ctx);
      const data = await signIn(await parseBody(ctx, schema), ctx);
      ctx.headers.push(["set-cookie", sessionCookie(data.token, s.config.COOKIE_SECURE)]);
      return { status, message, data };
    },
  };
}

export function authRoutes(s: Services): Route[] {
  const signIn = {
    pool: s.pool,
    tokens: s.tokens,
    passwords: s.passwords,
    sessionsMax: s.config.SESSIONS_PER_ACCOUNT_MAX,
    throttle: s.loginThrottle,
  };
  const passwordDeps = { pool: s.pool, passwords: s.passwords, throttle: s.loginThrottle };
  return [
    signingIn(s, "/auth/register", RegisterSchema, 201, "organisation registered", (input, ctx) => register(signIn, input, ctx.ip)),
    signingIn(s, "/auth/login", LoginSchema, 200, "logged in", (input, ctx) => login(signIn, input, ctx.ip)),
    {
      // Ends the session the token (or cookie) belongs to, in every process, and clears the cookie. A request
      // without a valid token has no session left to end: it still gets the cookie cleared.
      method: "POST",
      pattern: "/auth/logout",
      body: "none",
      handler: async (ctx) => {
        await logout(s.pool, s.tokens, ctx);
        ctx.headers.push(["set-cookie", clearedSessionCookie(s.config.COOKIE_SECURE)]);
        return { status: 200, message: "logged out", data: null };
      },
    },
    signingIn(s, "/auth/invitations/accept", AcceptInvitationSchema, 201, "invitation accepted; signed in", (input, ctx) =>
      acceptInvitation(signIn, input, ctx.ip),
    ),
    {
      method: "POST",
      pattern: "/auth/password-reset",
      body: "json",
      handler: async (ctx) => {
        await limitByIp(s, ctx);
        const { email } = await parseBody(ctx, PasswordResetRequestSchema);
        requestPasswordReset({ ...passwordDeps, mailer: s.mailer, ttlS: s.config.PASSWORD_RESET_TTL_S }, email, ctx.ip);
        return { status: 202, message: "if an account has this email, a reset token is on its way to it", data: null };
      },
    },
    {
      method: "POST",
      pattern: "/auth/password-reset/confirm",
      body: "json",
      handler: async (ctx) => {
        await limitByIp(s, ctx);
        const input = await parseBody(ctx, PasswordResetConfirmSchema);
        await confirmPasswordReset(passwordDeps, input, ctx.ip);
        return { status: 200, message: "password set; every session of the account has ended: sign in again", data: null };
      },
    },
  ];
}
