import { z } from "zod";
import { verifyIdentify } from "../../auth/identityVerification.js";
import type { KeyEntry } from "../../auth/keyCache.js";
import type { KeyType } from "../../auth/keys.js";
import type { AppError } from "../../errors.js";
import { eventRow, itemRow, userRow } from "../../ingest/toRows.js";
import type { Submission, Waiter } from "../../ingest/batcher.js";
import { EventSchema, ItemSchema, UserSchema, type Event, type Item, type User } from "../../ingest/schemas.js";
import { isPlainValidEvent } from "../../ingest/plainEvent.js";
import { isPlainValidItem, isPlainValidUser } from "../../ingest/plainRecord.js";
import type { QuotaKind } from "../../ingest/quotas.js";
import { MAX_RECORDS, validateRecords, type RecordKind } from "../../ingest/validate.js";
import { attributeBytes } from "../../wire/attributeBytes.js";
import type { Services } from "../../services.js";
import { jsonBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { sendError, sendJson } from "../respond.js";
import { ANSWERS_LATER, type Outcome, type Route } from "../router.js";

interface IngestEndpoint<T> {
  path: string;
  key: KeyType;
  kind: RecordKind<T>;
  toSubmission(org: number, records: T[]): Submission;
  /** Items and users count against the organisation's quotas; events do not. */
  quota?: QuotaKind;
  /** Checks what the key's organisation asks beyond validity (identity verification); throws to refuse the request. */
  verify?(key: KeyEntry, records: T[], bare: boolean): void;
}

const ITEMS: IngestEndpoint<Item> = {
  path: "/v1/items/upsert",
  key: "secret",
  kind: { plural: "items", singular: "item", schema: ItemSchema, vouch: isPlainValidItem },
  toSubmission: (org, records) => ({ org, items: records.map((r) => itemRow(org, r)) }),
  quota: "items",
};

const USERS: IngestEndpoint<User> = {
  path: "/v1/users/upsert",
  key: "secret",
  kind: { plural: "users", singular: "user", schema: UserSchema, vouch: isPlainValidUser },
  toSubmission: (org, records) => ({ org, users: records.map((r) => userRow(org, r)) }),
  quota: "users",
};

let stampMs = NaN;
let stamp = "";
/** The time of receipt as ISO 8601 text; formatted once per millisecond rather than once per request. */
function receivedNow(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

const EVENTS: IngestEndpoint<Event> = {
  path: "/v1/events/ingest",
  key: "publishable",
  kind: { plural: "events", singular: "event", schema: EventSchema, vouch: isPlainValidEvent },
  toSubmission: (org, records) => {
    const receivedAt = receivedNow();
    return { org, events: records.map((r) => eventRow(org, r, receivedAt)) };
  },
  verify: (key, records, bare) => {
    if (key.identitySecret === null) return;
    for (let i = 0; i < records.length; i++) verifyIdentify(key.identitySecret, records[i]!, bare ? "event" : `events[${i}]`);
  },
};

/**
 * Re-serialised attributes are at most this many UTF-8 bytes per UTF-16 unit of the body they were parsed from:
 * JSON.stringify writes a string in no more units than its source and a number in at most 5.25 times as many
 * (`1e20` becomes 21 digits), and a unit is at most 3 bytes of UTF-8. Cheap to know; the exact figure costs a
 * JSON.stringify of every item, paid only when this bound does not fit under the quota.
 */
const BYTES_PER_BODY_UNIT = 18;

function itemAttributeBytes(s: Submission): number {
  let bytes = 0;
  for (const r of s.items ?? []) bytes += attributeBytes(r[4]);
  return bytes;
}

/** The 202 answer's data: how many records of the request were accepted (all of them, or the request failed). */
export const IngestAcceptedSchema = z.strictObject({ accepted: z.number().int().min(1).max(MAX_RECORDS) });

/** The 202 envelope (spec 4.2), written out: one of these per request. */
function acceptedJson(plural: string, n: number): string {
  return `{"success":true,"message":"${n} ${plural} accepted","data":{"accepted":${n}},"error":null}`;
}

/** Answers one ingestion request when the batcher settles its records (the batcher's waiter). */
class Acknowledgement implements Waiter {
  constructor(
    private readonly ctx: RequestContext,
    private readonly json: string | Uint8Array,
  ) {}
  resolve(): void {
    sendJson(this.ctx, 202, this.json);
  }
  reject(err: AppError): void {
    sendError(this.ctx, err);
  }
}

/**
 * request → key → validate (whole request) → verify (identity verification) → batch → commit → 202. A key this process already knows is
 * checked at once, so a request costs no promise: the answer is written when its batch commits.
 */
function ingestRoute<T>(s: Services, e: IngestEndpoint<T>): Route {
  const single = Buffer.from(acceptedJson(e.kind.plural, 1));
  const submit = (ctx: RequestContext, submission: Submission, n: number): Outcome => {
    s.batcher.accept(submission, new Acknowledgement(ctx, n === 1 ? single : acceptedJson(e.kind.plural, n)), submission.alone);
    return ANSWERS_LATER;
  };
  const enqueue = (ctx: RequestContext, key: KeyEntry): Outcome | Promise<Outcome> => {
    const body = jsonBody(ctx);
    const records = validateRecords(body, e.kind);
    e.verify?.(key, records, !Array.isArray(body));
    const submission = e.toSubmission(key.orgSeq, records);
    if (!e.quota) return submit(ctx, submission, records.length);
    // A submission near its organisation's limit is written alone and answered after its commit (even with
    // INGEST_ACK=queued), so that the database's refusal reaches the client as 403.
    const bound = (ctx.bodyText?.length ?? 0) * BYTES_PER_BODY_UNIT;
    const state = s.quotas.known(key.orgSeq);
    if (state) {
      s.quotas.reserve(state, submission, bound, () => itemAttributeBytes(submission));
      return submit(ctx, submission, records.length);
    }
    return s.quotas.load(key.orgSeq).then((loaded) => {
      s.quotas.reserve(loaded, submission, bound, () => itemAttributeBytes(submission));
      return submit(ctx, submission, records.length);
    });
  };
  return {
    method: "POST",
    pattern: e.path,
    body: "json",
    handler: (ctx) => {
      const known = s.apiKeys.authenticateKnown(ctx, e.key);
      if (known) return enqueue(ctx, known);
      return s.apiKeys.authenticate(ctx, e.key).then((key) => enqueue(ctx, key));
    },
  };
}

export function ingestRoutes(s: Services): Route[] {
  return [ingestRoute(s, ITEMS), ingestRoute(s, USERS), ingestRoute(s, EVENTS)];
}
