import { AppError } from "../errors.js";
import type { RequestContext } from "./context.js";

/** A request body is at most 5 MiB (CONTRACT 4). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

const TOO_LARGE = () => new AppError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);

/**
 * Starts reading the body at once (uWS needs onData attached before the handler returns) and bounds it;
 * chunks are copied because uWS reuses their memory after the callback.
 */
export function readBody(ctx: RequestContext, limit = MAX_BODY_BYTES): Promise<Buffer> {
  if (ctx.contentLength !== undefined && ctx.contentLength > limit) return Promise.reject(TOO_LARGE());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let failed = false;
    ctx.res.onData((chunk, isLast) => {
      if (failed) return;
      total += chunk.byteLength;
      if (total > limit) {
        failed = true;
        reject(TOO_LARGE());
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    });
  });
}

/** `application/json`, with or without parameters such as `charset=utf-8`. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type === "application/json";
}

export async function readJson(ctx: RequestContext): Promise<unknown> {
  if (!ctx.body) throw new AppError("internal_error", "route did not read a body");
  const raw = await ctx.body;
  if (!isJsonContentType(ctx.contentType)) {
    throw new AppError("unsupported_media_type", "request body must be application/json");
  }
  if (raw.length === 0) throw new AppError("invalid_json", "request body is empty; expected JSON");
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw new AppError("invalid_json", `request body is not valid JSON: ${(err as Error).message}`);
  }
}
