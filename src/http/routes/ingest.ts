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
import { MAX_RECORDS, validateRecords, type RecordKind } from "../../ingest/validate.js";
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
  /** Checks what the key's organisation asks beyond validity (identity verification); throws to refuse the request. */
  verify?(key: KeyEntry, records: T[], bare: boolean): void;
}

const ITEMS: IngestEndpoint<Item> = {
  path: "/v1/items/upsert",
  key: "secret",
  kind: { plural: "items", singular: "item", schema: ItemSchema, vouch: isPlainValidItem },
  toSubmission: (org, records) => ({ items: records.map((r) => itemRow(org, r)) }),
};

const USERS: IngestEndpoint<User> = {
  path: "/v1/users/upsert",
  key: "secret",
  kind: { plural: "users", singular: "user", schema: UserSchema, vouch: isPlainValidUser },
  toSubmission: (org, records) => ({ users: records.map((r) => userRow(org, r)) }),
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
    return { events: records.map((r) => eventRow(org, r, receivedAt)) };
  },
  verify: (key, records, bare) => {
    if (key.identitySecret === null) return;
    for (let i = 0; i < records.length; i++) verifyIdentify(key.identitySecret, records[i]!, bare ? "event" : `events[${i}]`);
  },
};

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
  const enqueue = (ctx: RequestContext, key: KeyEntry): Outcome => {
    const body = jsonBody(ctx);
    const records = validateRecords(body, e.kind);
    e.verify?.(key, records, !Array.isArray(body));
    const json = records.length === 1 ? single : acceptedJson(e.kind.plural, records.length);
    s.batcher.accept(e.toSubmission(key.orgSeq, records), new Acknowledgement(ctx, json));
    return ANSWERS_LATER;
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
