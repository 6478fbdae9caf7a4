import { AppError, isAppError } from "../../errors.js";
import { requireRole, type Role } from "../../auth/roles.js";
import { recordAudit } from "../../accounts/audit.js";
import { authenticateAccount, organisationSeq, type Account } from "../../accounts/session.js";
import type { UploadKind } from "../../upload/csvRecords.js";
import { parserFor, uploadFormat, type UploadFormat } from "../../upload/formats.js";
import { UploadStream, type UploadResult } from "../../upload/uploadStream.js";
import type { Services } from "../../services.js";
import { BodyStream } from "../bodyStream.js";
import type { RequestContext } from "../context.js";
import type { Reply, Route } from "../router.js";

const UPLOADERS: readonly Role[] = ["OWNER", "ADMIN", "DEVELOPER"];

/** What the audit log says of an upload, finished or not. */
function auditTarget(format: UploadFormat, stored: number, result: UploadResult | undefined, err: unknown): string {
  const counts = result ? `${result.accepted} stored, ${result.rejected} rejected` : `${stored} stored`;
  const stop = err === undefined ? "" : `; stopped: ${isAppError(err) ? err.code : "internal_error"}`;
  return `${format}: ${counts}${stop}`;
}

/**
 * body (streamed) → parser → per-row validation → batcher → COPY → 202 with the counts and the first errors.
 * The socket is held paused until the caller's account and role are checked, then throttled by the commits.
 */
async function receiveUpload(s: Services, ctx: RequestContext, kind: UploadKind): Promise<Reply> {
  const ip = ctx.ip;
  const body = new BodyStream(ctx, s.config.UPLOAD_MAX_BYTES);
  let format: UploadFormat;
  let who: Account;
  let stream: UploadStream;
  try {
    format = uploadFormat(ctx.contentType);
    who = await authenticateAccount(s.pool, s.tokens, ctx);
    requireRole(who.role, UPLOADERS, "upload files");
    const orgSeq = await organisationSeq(s.pool, who.orgId);
    stream = new UploadStream(kind, orgSeq, s.batcher, body, s.quotas, await s.quotas.state(orgSeq));
  } catch (err) {
    body.abandon();
    throw err;
  }
  let result: UploadResult | undefined;
  let failure: unknown;
  try {
    await body.pipe(parserFor(format, kind, stream));
    result = await stream.finish();
  } catch (err) {
    failure = err;
  }
  const stored = await stream.settled();
  await recordAudit(s.pool, who, { action: `upload.${kind}`, target: auditTarget(format, stored, result, failure), ip });
  if (failure !== undefined) throw stoppedAfter(failure, stored);
  return { status: 202, message: `${result!.accepted} ${kind} stored, ${result!.rejected} rejected`, data: result };
}

/** The error that stopped an upload, saying how much of it was stored before. */
function stoppedAfter(err: unknown, stored: number): unknown {
  if (!isAppError(err) || stored === 0) return err;
  return new AppError(
    err.code,
    `${err.message}; ${stored} rows before that were stored (uploading the file again is safe: rows are upserts)`,
    err.headers,
  );
}

export function uploadRoutes(s: Services): Route[] {
  return (["items", "users"] as const).map((kind) => ({
    method: "POST",
    pattern: `/v1/upload/${kind}`,
    body: "stream" as const,
    handler: (ctx: RequestContext) => receiveUpload(s, ctx, kind),
  }));
}
