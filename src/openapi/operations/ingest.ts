import { IngestAcceptedSchema } from "../../http/routes/ingest.js";
import { EventSchema, ItemSchema, UserSchema } from "../../ingest/schemas.js";
import type { Named } from "../operation.js";
import { API_KEY_ERRORS, DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";

const ACCEPTED = { name: "Accepted", schema: IngestAcceptedSchema };
const WHOLE =
  "One record or an array of 1 to 10,000. The request is validated whole: one invalid record fails it (400, each failing index and field named) and nothing of it is stored. " +
  "202 means committed to the database.";

/** Items and users count against the organisation's quotas (README, Quotas); events do not. */
const QUOTA =
  " A request that would take the organisation past its quota of items, users or attribute bytes is 403 `quota_exceeded` (the limit in `message`) and nothing of it is stored; replacing stored records within the quota still works.";
const VERIFIED =
  " With identity verification on, an `identify` of a `user_id` not starting `anon-` needs its `user_hash`, and its `previous_user_id` must start `anon-` (else 403 `unverified_user`).";

function ingest(path: string, operationId: string, summary: string, record: Named, key: "secretKey" | "publishableKey", plural: string): Operation {
  const quota = plural !== "events";
  const which = key === "secretKey" ? "the secret key (`svc_sk_…`)" : "the publishable key (`svc_pk_…`)";
  const verified = key === "publishableKey";
  return {
    method: "post",
    path,
    operationId,
    tag: "Ingestion",
    summary,
    description: `Takes ${which}; the other key is 403 \`wrong_key_type\`. ${WHOLE}${quota ? QUOTA : ""}${verified ? VERIFIED : ""}`,
    auth: key,
    rateLimit: "key",
    body: { kind: "json", schema: record, batch: true },
    success: {
      kind: "envelope",
      status: 202,
      description: "Every record is accepted.",
      message: `1 ${plural} accepted`,
      data: ACCEPTED,
      example: { accepted: 1 },
      ingest: true,
    },
    errors: [
      ...API_KEY_ERRORS,
      ...JSON_BODY_ERRORS,
      ...(quota ? (["quota_exceeded"] as const) : []),
      ...(verified ? (["unverified_user"] as const) : []),
      ...DATABASE_ERRORS,
    ],
  };
}

export const INGEST_OPERATIONS: Operation[] = [
  ingest("/v1/items/upsert", "upsertItems", "Create or replace items", { name: "Item", schema: ItemSchema }, "secretKey", "items"),
  ingest("/v1/users/upsert", "upsertUsers", "Create or replace users", { name: "User", schema: UserSchema }, "secretKey", "users"),
  ingest("/v1/events/ingest", "ingestEvents", "Record events", { name: "Event", schema: EventSchema }, "publishableKey", "events"),
];
