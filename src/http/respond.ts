import type { LimitResult } from "../auth/rateLimit.js";
import { appError, type AppError, isAppError } from "../errors.js";
import { log } from "../wire/log.js";
import type { RequestContext } from "./context.js";
import { CORS_EXPOSE, CORS_ORIGIN } from "./cors.js";
import type { Reply } from "./router.js";

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK",
  201: "201 Created",
  202: "202 Accepted",
  302: "302 Found",
  400: "400 Bad Request",
  401: "401 Unauthorized",
  403: "403 Forbidden",
  404: "404 Not Found",
  405: "405 Method Not Allowed",
  409: "409 Conflict",
  413: "413 Payload Too Large",
  415: "415 Unsupported Media Type",
  429: "429 Too Many Requests",
  500: "500 Internal Server Error",
  503: "503 Service Unavailable",
};
const STATUS_LINE = new Map(Object.entries(STATUS_TEXT).map(([k, v]) => [Number(k), Buffer.from(v)]));

/**
 * The headers every answer carries, written as one block. uWS writes `key: value\r\n` as given, so a value
 * holding further `\r\n`-separated lines writes them all in one call; and a Buffer crosses into uWS without
 * the UTF-8 conversion each JS string costs. Only constants and numbers are ever written this way.
 */
const JSON_KEY = Buffer.from("content-type");
/** API answers are data, never a page: no content may load from them, no page may frame them. */
const API_SECURITY = [
  "x-content-type-options: nosniff",
  "content-security-policy: default-src 'none'; frame-ancestors 'none'",
  "referrer-policy: no-referrer",
];
const JSON_VALUE = Buffer.from(["application/json; charset=utf-8", ...API_SECURITY, CORS_ORIGIN.join(": ")].join("\r\n"));
const EXPOSE_KEY = Buffer.from(CORS_EXPOSE[0]);
const EXPOSE_VALUE = Buffer.from(CORS_EXPOSE[1]);
const RATE_LIMIT_KEY = Buffer.from("RateLimit-Limit");

/** The RateLimit-* headers after RateLimit-Limit's name, as one value (see JSON_VALUE). */
function rateLimitLines(r: LimitResult): string {
  return `${r.limit}\r\nRateLimit-Remaining: ${r.remaining}\r\nRateLimit-Reset: ${r.resetS}\r\nRateLimit-Policy: ${r.policy}`;
}

export function sendReply(ctx: RequestContext, reply: Reply): void {
  const body = reply.ingest
    ? { success: true, message: reply.message, data: reply.data, error: null }
    : { success: true, message: reply.message, data: reply.data };
  write(ctx, reply.status, JSON.stringify(body));
}

/** A success answer whose JSON envelope the caller has already built (the ingestion answers). */
export function sendJson(ctx: RequestContext, status: number, json: string | Uint8Array): void {
  write(ctx, status, json);
}

/** The one place where a failure becomes an HTTP response. Unexpected errors are logged and hidden. */
export function sendError(ctx: RequestContext, err: unknown): void {
  const failure = isAppError(err) ? err : internal(ctx, err);
  for (const [k, v] of Object.entries(failure.headers)) ctx.headers.push([k, v]);
  write(ctx, failure.status, JSON.stringify({ success: false, message: failure.message, error: failure.code }));
}

function internal(ctx: RequestContext, err: unknown): AppError {
  log.error("unhandled error", { method: ctx.method, path: ctx.path, error: (err as Error)?.stack ?? String(err) });
  return appError("internal_error", "unexpected");
}

function write(ctx: RequestContext, status: number, body: string | Uint8Array): void {
  if (ctx.aborted || ctx.answered) return;
  ctx.markAnswered(status);
  const { res, rateLimit, headers } = ctx;
  res.cork(() => {
    res.writeStatus(STATUS_LINE.get(status) ?? String(status));
    res.writeHeader(JSON_KEY, JSON_VALUE);
    if (rateLimit !== undefined || headers.length > 0) res.writeHeader(EXPOSE_KEY, EXPOSE_VALUE);
    if (rateLimit !== undefined) res.writeHeader(RATE_LIMIT_KEY, rateLimitLines(rateLimit));
    for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i][0], headers[i][1]);
    if (ctx.method === "HEAD") endHead(res, typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
    else res.end(body, ctx.closeAfterAnswer);
  });
}

/**
 * A HEAD answer: the length of the body a GET would get, and no body (uWS writes whatever end() is given, and
 * a keep-alive client would read those bytes as its next response). The length goes in as a plain header:
 * uWS's endWithoutBody(length) leaves the response waiting for those bytes, and the connection's next
 * request is then dropped unanswered.
 */
function endHead(res: RequestContext["res"], length: number): void {
  res.writeHeader("content-length", String(length));
  res.endWithoutBody();
}

/** A redirect to another page of this server, with no body (`GET /` leads to the dashboard). */
export function sendRedirect(ctx: RequestContext, location: string): void {
  if (ctx.aborted || ctx.answered) return;
  ctx.markAnswered(302);
  const { res } = ctx;
  res.cork(() => {
    res.writeStatus(STATUS_LINE.get(302)!);
    res.writeHeader("location", location);
    res.writeHeader("cache-control", "no-cache");
    if (ctx.method === "HEAD") endHead(res, 0);
    else res.end();
  });
}

/** A static file of the web dashboard: its own type, and the headers (CSP and the like) its page needs. */
export function sendStatic(ctx: RequestContext, contentType: string, body: Uint8Array, headers: ReadonlyArray<readonly [string, string]>): void {
  if (ctx.aborted || ctx.answered) return;
  ctx.markAnswered(200);
  const { res } = ctx;
  res.cork(() => {
    res.writeStatus(STATUS_LINE.get(200)!);
    res.writeHeader("content-type", contentType);
    for (const [k, v] of headers) res.writeHeader(k, v);
    if (ctx.method === "HEAD") endHead(res, body.length);
    else res.end(body);
  });
}
