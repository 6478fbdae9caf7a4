import { type AppError, isAppError } from "../../errors.js";
import { requireRole, type Role } from "../../auth/roles.js";
import { recordAuditPatiently } from "../../accounts/audit.js";
import { authenticateAccount, organisationSeq, type Account } from "../../accounts/session.js";
import type { UploadKind } from "../../upload/csvRecords.js";
import { uploadFormat, type UploadFormat } from "../../upload/formats.js";
import type { ParseSession } from "../../upload/parseSession.js";
import { UploadParsers } from "../../upload/uploadParsers.js";
import { UploadSlots } from "../../upload/uploadSlots.js";
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

/** What every upload of the process shares: the concurrency slots and the parse thread. */
interface Uploads {
  slots: UploadSlots;
  parsers: UploadParsers;
}

/**
 * body (streamed) → parse thread (parser, per-row validation, rows packed in chunks) → batcher → COPY → 202
 * with the counts and the first errors. The socket is held paused until the caller's account, role and upload
 * slot are settled, then throttled by the parse thread's backlog and the commits.
 */
async function receiveUpload(s: Services, uploads: Uploads, ctx: RequestContext, kind: UploadKind): Promise<Reply> {
  const ip = ctx.ip;
  const body = new BodyStream(ctx, s.config.UPLOAD_MAX_BYTES);
  let format: UploadFormat;
  let who: Account;
  let seq: number;
  let release: () => void;
  try {
    format = uploadFormat(ctx.contentType);
    who = await authenticateAccount(s.pool, s.tokens, ctx);
    requireRole(who.role, UPLOADERS, "upload files");
    seq = await organisationSeq(s.pool, who.orgId);
    release = uploads.slots.acquire(who.orgId);
  } catch (err) {
    body.abandon();
    throw err;
  }
  try {
    // The stream throttles and stops the session, which hands the stream its rows.
    const control = { pause: () => session.pause(), resume: () => session.resume(), fail: (err: AppError) => session.fail(err) };
    const stream = new UploadStream(kind, seq, s.batcher, control, s.quotas, await s.quotas.state(seq));
    const session: ParseSession = uploads.parsers.open({ format, kind, org: seq, maxColumns: s.config.UPLOAD_MAX_COLUMNS }, body, stream);
    let result: UploadResult | undefined;
    let failure: unknown;
    try {
      const [, parsed] = await Promise.all([body.pipe(session), session.done]);
      result = await stream.finish(parsed);
    } catch (err) {
      failure = err;
      session.fail(err);
      body.abandon();
    }
    const stored = await stream.catchUp();
    // The rows are stored whatever happens to the audit entry: its failure is logged, never the upload's answer.
    await recordAuditPatiently(s.pool, who, { action: `upload.${kind}`, target: auditTarget(format, stored, result, failure), ip });
    if (failure !== undefined) throw stoppedAfter(failure, stored);
    return { status: 202, message: `${result!.accepted} ${kind} stored, ${result!.rejected} rejected`, data: result };
  } finally {
    release();
  }
}

/** The error that stopped an upload, saying how much of it was stored before. */
function stoppedAfter(err: unknown, stored: number): unknown {
  if (!isAppError(err) || stored === 0) return err;
  return err.adding("storedBefore", { stored });
}

export function uploadRoutes(s: Services): Route[] {
  const uploads: Uploads = { slots: new UploadSlots(s.config.UPLOAD_MAX_PER_ORG, s.config.UPLOAD_MAX_CONCURRENT), parsers: new UploadParsers() };
  return (["items", "users", "events"] as const).map((kind) => ({
    method: "POST",
    pattern: `/v1/upload/${kind}`,
    body: "stream" as const,
    handler: (ctx: RequestContext) => receiveUpload(s, uploads, ctx, kind),
  }));
}
