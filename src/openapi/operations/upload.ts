import { ItemSchema, UserSchema } from "../../ingest/schemas.js";
import { UploadResultSchema } from "../../upload/uploadStream.js";
import { DATABASE_ERRORS, type Operation } from "../operation.js";

const RESULT = { name: "UploadResult", schema: UploadResultSchema };

/** One upload operation per record kind: same path shape, same answers. */
function upload(kind: "items" | "users", record: "Item" | "User", csvExample: string): Operation {
  return {
    method: "post",
    path: `/v1/upload/${kind}`,
    operationId: kind === "items" ? "uploadItems" : "uploadUsers",
    tag: "Bulk upload",
    summary: `Upload a file of ${kind}`,
    description:
      `OWNER, ADMIN or DEVELOPER. The body (\`text/csv\`, \`application/x-ndjson\` or a JSON array) is streamed, never held whole; ` +
      "each valid row is stored as an upsert, invalid rows are counted and the first 100 reported by line. " +
      "In CSV the header names the columns (at most UPLOAD_MAX_COLUMNS, 1,000); every column that is not a field becomes an attribute. " +
      "A record (CSV row, NDJSON line, JSON array element) may be 1 MiB of UTF-8 (413 beyond). " +
      "At most UPLOAD_MAX_PER_ORG (2) uploads of an organisation run at once (429 beyond), and UPLOAD_MAX_CONCURRENT (4) in the process (503 beyond). " +
      "Rows that would take the organisation past its quota (items, users, attribute bytes) are rejected with the quota's message, the others stored; " +
      "403 `quota_exceeded` only when another upload or process took the last of the quota between the check and the commit (the message says how many rows were stored before).",
    auth: "bearer",
    body: { kind: "file", schema: { name: record, schema: kind === "items" ? ItemSchema : UserSchema }, csvExample },
    success: {
      kind: "envelope",
      status: 202,
      description: "The file is read to its end and its valid rows are stored.",
      message: `2 ${kind} stored, 1 rejected`,
      data: RESULT,
      example: { accepted: 2, rejected: 1, errors: [{ line: 4, message: 'status: Invalid option: expected one of "active"|"inactive"|"deleted"' }] },
    },
    errors: [
      "validation_error",
      "invalid_token",
      "forbidden_role",
      "quota_exceeded",
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
];
