import { ErasureAcceptedSchema, ErasureSchema, EraseRequestSchema } from "../../erasure/schemas.js";
import { API_KEY_ERRORS, DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const WHO =
  "Takes the secret key (`svc_sk_…`; the publishable key is 403 `wrong_key_type`), counted against the organisation's rate limit (its answers carry the `RateLimit-*` headers), or a dashboard token of an OWNER or ADMIN (another role is 403 `forbidden_role`).";
const ERASURE_ID = "2b9d4c1e-6f3a-4e8b-9c7d-1a0e5f2b3c4d";
const CALLER_ERRORS = [...API_KEY_ERRORS, "invalid_token", "forbidden_role"] as const;

export const ERASURE_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/users/erase",
    operationId: "eraseUsers",
    tag: "Erasure",
    summary: "Erase users and their data",
    description:
      `${WHO} Audited (\`users.erased\`). In the answer's transaction the users' rows and every identity alias from or to them are deleted; ` +
      "every recommender thread of every process then drops their history; their events and served recommendations (up to this request) are deleted after, in bounded chunks. " +
      "What they added to aggregates (co-occurrence counts, popularity) stays. More than `ERASURES_PENDING_MAX` erasures of one organisation running at once is 429 `rate_limited`.",
    auth: ["secretKey", "bearer"],
    body: { kind: "json", schema: { name: "EraseRequest", schema: EraseRequestSchema } },
    success: {
      kind: "envelope",
      status: 202,
      description: "The erasure is recorded; ask its state with its id.",
      message: "erasure of 2 users accepted; their events are being deleted",
      data: { name: "ErasureAccepted", schema: ErasureAcceptedSchema },
      example: { erasure_id: ERASURE_ID },
    },
    errors: [...CALLER_ERRORS, ...JSON_BODY_ERRORS, ...DATABASE_ERRORS],
  },
  {
    method: "get",
    path: "/v1/users/erase/{erasure_id}",
    operationId: "getErasure",
    tag: "Erasure",
    summary: "Read an erasure's state",
    description: `${WHO} \`pending\` while events are being deleted, then \`done\`; with what was deleted so far. Kept \`ERASURES_RETENTION_DAYS\` after it is done.`,
    auth: ["secretKey", "bearer"],
    pathParams: {
      erasure_id: { schema: ErasureAcceptedSchema.shape.erasure_id, description: "The id `POST /v1/users/erase` answered.", example: ERASURE_ID },
    },
    success: {
      kind: "envelope",
      status: 200,
      description: "The erasure.",
      message: "erasure done",
      data: { name: "Erasure", schema: ErasureSchema },
      example: {
        erasure_id: ERASURE_ID,
        status: "done",
        requested_at: EXAMPLE.at,
        done_at: "2025-03-01T12:00:04.000Z",
        users: 2,
        deleted: { users: 1, aliases: 1, events: 1520, served_recommendations: 37 },
      },
    },
    errors: [...CALLER_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
];
