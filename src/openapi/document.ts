import { envelopeSchemas, securitySchemes, sharedResponses } from "./components.js";
import type { Operation } from "./operation.js";
import { OPERATIONS } from "./operations/index.js";
import { parameters, requestBody } from "./requests.js";
import { responses } from "./responses.js";
import { SchemaRegistry } from "./schemaRegistry.js";

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
};

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

const DESCRIPTION = [
  "Multi-tenant recommendation service: catalog, users and events in, ranked recommendations out.",
  "",
  "**Paths.** Every `/v1/…` path also answers, identically, under `/api/v1/…`, and every `/auth/…` path under `/api/auth/…`. " +
    "An unknown path is 404 `not_found` (see the `NotFound` response) and a known path with another method 405 `method_not_allowed` " +
    "with an `Allow` header (`MethodNotAllowed`). HEAD is answered wherever GET is, and a browser's CORS preflight (OPTIONS) on any known path.",
  "",
  "**Envelopes.** A success is `{success: true, message, data}` (ingestion adds `error: null`); a failure is " +
    "`{success: false, message, error}` where `error` is a stable code of `ErrorCode`, and each code has one HTTP status.",
  "",
  "**Credentials.** `X-API-KEY` carries the publishable key (`svc_pk_…`: events, recommend) or the secret key (`svc_sk_…`: item and user upserts); " +
    "the other type is 403 `wrong_key_type`. Dashboard operations take `Authorization: Bearer <token>` from /auth/register or /auth/login.",
  "",
  "**Rate limits.** Key-authenticated answers carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy` " +
    "(per organisation); /auth/register and /auth/login the same per client IP. A 429 adds `Retry-After`.",
  "",
  "Request bodies are `application/json` (a `charset=utf-8` parameter is fine), at most 5 MiB; unknown fields are refused.",
].join("\n");

/** The OpenAPI 3.1 description of the API, built from the operations and the zod schemas the server validates with. */
export function buildDocument(operations: readonly Operation[] = OPERATIONS): OpenApiDocument {
  const registry = new SchemaRegistry();
  const paths: OpenApiDocument["paths"] = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
    item[op.method] = operationObject(op, registry);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Recommendation service API", version: "1", description: DESCRIPTION },
    tags: [...new Set(operations.map((op) => op.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...envelopeSchemas(), ...registry.schemas },
      responses: sharedResponses(),
      securitySchemes: securitySchemes(),
    },
  };
}

function operationObject(op: Operation, registry: SchemaRegistry): Record<string, unknown> {
  const params = parameters(op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    security: op.auth === "none" ? [] : [op.auth].flat().map((a) => ({ [a]: [] })),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body ? { requestBody: requestBody(op.body, registry) } : {}),
    responses: responses(op, registry),
  };
}
