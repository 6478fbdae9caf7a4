import type { KeyType } from "../../auth/keys.js";
import { eventRow, itemRow, userRow } from "../../ingest/rows.js";
import type { Submission } from "../../ingest/batcher.js";
import { EventSchema, ItemSchema, UserSchema, type Event, type Item, type User } from "../../ingest/schemas.js";
import { isPlainValidEvent } from "../../ingest/plainEvent.js";
import { validateRecords, type RecordKind } from "../../ingest/validate.js";
import type { Services } from "../../services.js";
import { readJson } from "../body.js";
import type { Route } from "../router.js";

interface IngestEndpoint<T> {
  path: string;
  key: KeyType;
  kind: RecordKind<T>;
  toSubmission(org: number, records: T[]): Submission;
}

const ITEMS: IngestEndpoint<Item> = {
  path: "/v1/items/upsert",
  key: "secret",
  kind: { plural: "items", singular: "item", schema: ItemSchema },
  toSubmission: (org, records) => ({ items: records.map((r) => itemRow(org, r)) }),
};

const USERS: IngestEndpoint<User> = {
  path: "/v1/users/upsert",
  key: "secret",
  kind: { plural: "users", singular: "user", schema: UserSchema },
  toSubmission: (org, records) => ({ users: records.map((r) => userRow(org, r)) }),
};

const EVENTS: IngestEndpoint<Event> = {
  path: "/v1/events/ingest",
  key: "publishable",
  kind: { plural: "events", singular: "event", schema: EventSchema, vouch: isPlainValidEvent },
  toSubmission: (org, records) => {
    const receivedAt = new Date().toISOString();
    return { events: records.map((r) => eventRow(org, r, receivedAt)) };
  },
};

/** request → key → validate (whole request) → batch → commit → 202 */
function ingestRoute<T>(s: Services, e: IngestEndpoint<T>): Route {
  return {
    method: "POST",
    pattern: e.path,
    body: "json",
    handler: async (ctx) => {
      const key = await s.apiKeys.authenticate(ctx, e.key);
      const records = validateRecords(await readJson(ctx), e.kind);
      await s.batcher.submit(e.toSubmission(key.orgSeq, records));
      return { status: 202, message: `${records.length} ${e.kind.plural} accepted`, data: { accepted: records.length }, ingest: true };
    },
  };
}

export function ingestRoutes(s: Services): Route[] {
  return [ingestRoute(s, ITEMS), ingestRoute(s, USERS), ingestRoute(s, EVENTS)];
}
