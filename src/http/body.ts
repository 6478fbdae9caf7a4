import { appError } from "../errors.js";
import type { RequestContext } from "./context.js";

/** A request body is at most 5 MiB (CONTRACT 4). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

const TOO_LARGE = () => appError("payload_too_large", "body", { max: MAX_BODY_BYTES });

/**
 * Reads the body as UTF-8 text into ctx.bodyText (or sets ctx.bodyError once it exceeds `limit`), then calls
 * `done` once. uWS needs onData attached before the request callback returns, and reuses a chunk's memory
 * after the callback: a body that arrives whole (the usual case) is decoded straight from uWS's memory, with
 * no copy; split bodies are copied, then joined before decoding (a character may straddle two chunks).
 */
export function readBody(ctx: RequestContext, done: () => void, limit = MAX_BODY_BYTES): void {
  if (ctx.contentLength !== undefined && ctx.contentLength > limit) {
    ctx.bodyError = TOO_LARGE();
    done();
    return;
  }
  // uWS reports the end of an empty body only when the request's head arrived in one piece: after a head split
  // over several packets, onData is never called for `Content-Length: 0`, and the request waited forever.
  if (ctx.contentLength === 0) {
    ctx.bodyText = "";
    done();
    return;
  }
  let chunks: Buffer[] | undefined;
  let total = 0;
  let failed = false;
  ctx.res.onData((chunk, isLast) => {
    if (failed) return;
    total += chunk.byteLength;
    if (total > limit) {
      failed = true;
      ctx.bodyError = TOO_LARGE();
      done();
      return;
    }
    if (isLast && chunks === undefined) {
      ctx.bodyText = Buffer.from(chunk).toString("utf8");
      done();
      return;
    }
    (chunks ??= []).push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) {
      ctx.bodyText = Buffer.concat(chunks, total).toString("utf8");
      done();
    }
  });
}

/** `application/json`, with or without parameters such as `charset=utf-8`. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  if (contentType === "application/json") return true;
  const semicolon = contentType.indexOf(";");
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return type === "application/json";
}

/** The body as JSON, for a route declared with a body (the server calls its handler once the body is read). */
export function jsonBody(ctx: RequestContext): unknown {
  if (ctx.bodyError) throw ctx.bodyError;
  const raw = ctx.bodyText;
  if (raw === undefined) throw appError("internal_error", "noBody");
  if (!isJsonContentType(ctx.contentType)) {
    throw appError("unsupported_media_type", "json");
  }
  if (raw.length === 0) throw appError("invalid_json", "empty");
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw appError("invalid_json", "syntax", { reason: (err as Error).message });
  }
}

export async function readJson(ctx: RequestContext): Promise<unknown> {
  return jsonBody(ctx);
}
