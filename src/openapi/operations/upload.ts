import { EventSchema, ItemSchema, UserSchema } from "../../ingest/schemas.js";
import { UploadResultSchema } from "../../upload/uploadStream.js";
import { DATABASE_ERRORS, type Operation } from "../operation.js";

const RESULT = { name: "UploadResult", schema: UploadResultSchema };

const SCHEMAS = { items: ItemSchema, users: UserSchema, events: EventSchema };
const OPERATION_IDS = { items: "uploadItems", users: "uploadUsers", events: "uploadEvents" };
const STORED = {
  items: "each valid row is stored as an upsert",
  users: "each valid row is stored as an upsert",
  events:
    "each valid row is stored as an event, as `POST /v1/events/ingest` would store it (a repeated `event_id` once; without a `timestamp` the event happened on receipt), " +
    "so a shop can start from its past orders and views: give each row its `timestamp` and, to make a resent file harmless, its `event_id`. " +
    "Identity verification does not apply: the dashboard token is trusted as the secret key is (`user_hash` is not needed)",
};
const COLUMNS = {
  items: "every column that is not a field becomes an attribute",
  users: "every column that is not a field becomes an attribute",
  events:
    "the fields are `user_id`, `event_family`, `event_name` (required), `item_id`, `previous_user_id`, `recommendation_id`, `event_id` and `timestamp`; every other column becomes a key of `context`",
};

/** One upload operation per record kind: same path shape, same answers. */
function upload(kind: "items" | "users" | "events", record: "Item" | "User" | "Event", csvExample: string): Operation {
  return {
    method: "post",
    path: `/v1/upload/${kind}`,
    operationId: OPERATION_IDS[kind],
    tag: "Bulk upload",
    summary: `Upload a file of ${kind}`,
    description:
      `OWNER, ADMIN or DEVELOPER. The body (\`text/csv\`, \`application/x-ndjson\` or a JSON array) is streamed, never held whole; ` +
      `${STORED[kind]}; invalid rows are counted and the first 100 reported by line. ` +
      `In CSV the header names the columns (at most UPLOAD_MAX_COLUMNS, 1,000); ${COLUMNS[kind]}. ` +
      "A record (CSV row, NDJSON line, JSON array element) may be 1 MiB of UTF-8 (413 beyond). " +
      "At most UPLOAD_MAX_PER_ORG (2) uploads of an organisation run at once (429 beyond), and UPLOAD_MAX_CONCURRENT (4) in the process (503 beyond). " +
      (kind === "events"
        ? "Events count against no quota. The body is at most UPLOAD_MAX_BYTES (413 beyond)."
        : "Rows that would take the organisation past its quota (items, users, attribute bytes) are rejected with the quota's message, the others stored; " +
          "403 `quota_exceeded` only when another upload or process took the last of the quota between the check and the commit (the message says how many rows were stored before)."),
    auth: "bearer",
    body: { kind: "file", schema: { name: record, schema: SCHEMAS[kind] }, csvExample },
    success: {
      kind: "envelope",
      status: 202,
      description: "The file is read to its end and its valid rows are stored.",
      message: `2 ${kind} stored, 1 rejected`,
      data: RESULT,
      example:
        kind === "events"
          ? { accepted: 2, rejected: 1, errors: [{ line: 4, message: "timestamp: must be an ISO 8601 timestamp with a time zone" }] }
          : { accepted: 2, rejected: 1, errors: [{ line: 4, message: 'status: Invalid option: expected one of "active"|"inactive"|"deleted"' }] },
    },
    errors: [
      "validation_error",
      "invalid_token",
      "forbidden_role",
      ...(kind === "events" ? [] : (["quota_exceeded"] as const)),
      "payload_too_large",
      "unsupported_media_type",
      "rate_limited",
      ...DATABASE_ERRORS,
    ],
  };
}

export const UPLOAD_OPERATIONS: Operation[] = [
  upload(
    "items",
    "Item",
    "item_id,item_type,status,brand,price\nsku-1,product,active,Acme,19.9\nsku-2,product,active,Zenith,5\nsku-3,product,gone,Acme,7\n",
  ),
  upload(
    "users",
    "User",
    "user_id,status,created_at,country\nu-1,active,2025-01-02T08:00:00Z,NL\nu-2,active,2025-01-03T08:00:00Z,BE\nu-3,lost,2025-01-04T08:00:00Z,FR\n",
  ),
  upload(
    "events",
    "Event",
    "user_id,event_family,event_name,item_id,timestamp,event_id,channel\nu-1,conversion,purchase,sku-1,2024-11-02T10:15:00Z,6f1c2a4e-2b8e-4f55-9d3a-0c1e2f3a4b5c,web\nu-2,engagement,view,sku-2,2024-11-02T11:00:00Z,,app\nu-3,engagement,view,sku-3,yesterday,,web\n",
  ),
];
