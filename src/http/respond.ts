import { AppError, isAppError } from "../errors.js";
import { log } from "../log.js";
import type { RequestContext } from "./context.js";
import { CORS_EXPOSE, CORS_ORIGIN } from "./cors.js";
import type { Reply } from "./router.js";

const STATUS_TEXT: Record<number, string> = {
  200: "200 OK", 201: "201 Created", 202: "202 Accepted", 400: "400 Bad Request", 401: "401 Unauthorized",
  403: "403 Forbidden", 404: "404 Not Found", 405: "405 Method Not Allowed", 409: "409 Conflict",
  413: "413 Payload Too Large", 415: "415 Unsupported Media Type", 429: "429 Too Many Requests",
  500: "500 Internal Server Error", 503: "503 Service Unavailable",
};

export function sendReply(ctx: RequestContext, reply: Reply): void {
  const body = reply.ingest
    ? { success: true, message: reply.message, data: reply.data, error: null }
    : { success: true, message: reply.message, data: reply.data };
  write(ctx, reply.status, JSON.stringify(body));
}

/** The one place where a failure becomes an HTTP response. Unexpected errors are logged and hidden. */
export function sendError(ctx: RequestContext, err: unknown): void {
  const appError = isAppError(err) ? err : internal(ctx, err);
  for (const [k, v] of Object.entries(appError.headers)) ctx.headers.push([k, v]);
  write(ctx, appError.status, JSON.stringify({ success: false, message: appError.message, error: appError.code }));
}

function internal(ctx: RequestContext, err: unknown): AppError {
  log.error("unhandled error", { method: ctx.method, path: ctx.path, error: (err as Error)?.stack ?? String(err) });
  return new AppError("internal_error", "internal server error");
}

function write(ctx: RequestContext, status: number, body: string): void {
  if (ctx.aborted || ctx.answered) return;
  ctx.answered = true;
  const { res } = ctx;
  res.cork(() => {
    res.writeStatus(STATUS_TEXT[status] ?? String(status));
    res.writeHeader("content-type", "application/json; charset=utf-8");
    res.writeHeader("x-content-type-options", "nosniff");
    res.writeHeader(...CORS_ORIGIN);
    if (ctx.headers.length > 0) res.writeHeader(...CORS_EXPOSE);
    for (const [k, v] of ctx.headers) res.writeHeader(k, v);
    res.end(body);
  });
}
