import { ERROR_STATUS, type ErrorCode } from "../errors.js";
import { ERROR_EXAMPLE_MESSAGES } from "./errorExamples.js";
import type { JsonSchema } from "./jsonSchema.js";

export const ref = (kind: "schemas" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Every code of the catalog, generated from src/errors.ts. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

const COUNT = { type: "integer", minimum: 0 };

/** The headers answers may carry, each described once (inlined: a header `$ref` cannot say whether it is required). */
const HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  "RateLimit-Limit": { description: "Requests allowed in the window.", schema: COUNT },
  "RateLimit-Remaining": { description: "Requests left in the window.", schema: COUNT },
  "RateLimit-Reset": { description: "Seconds until the window ends.", schema: COUNT },
  "RateLimit-Policy": {
    description: "The limit and its window in seconds, as `limit;w=window`.",
    schema: { type: "string", pattern: "^\\d+;w=\\d+$" },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
  Allow: { description: "The methods the path takes.", schema: { type: "string" } },
  "Set-Cookie": { description: "The web dashboard's session cookie (HttpOnly, SameSite=Strict).", schema: { type: "string" } },
};

export type HeaderName = keyof typeof HEADERS;
export const RATE_LIMIT_HEADER_NAMES: HeaderName[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"];

export function header(name: HeaderName, required: boolean): unknown {
  return { ...HEADERS[name], required };
}

/** The envelopes and the code catalog. */
export function envelopeSchemas(): Record<string, JsonSchema> {
  return {
    ErrorCode: { type: "string", enum: ERROR_CODES, description: "A stable error code; each has one HTTP status." },
    Error: {
      type: "object",
      description: "The error envelope every failure is answered with.",
      required: ["success", "message", "error"],
      properties: {
        success: { const: false },
        message: { type: "string", description: "What went wrong, for a person." },
        error: ref("schemas", "ErrorCode"),
      },
      additionalProperties: false,
    },
  };
}

/** The error envelope restricted to the codes one status of one operation can carry. */
export function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return { allOf: [ref("schemas", "Error"), { type: "object", properties: { error: { enum: codes } } }] };
}

export function errorExample(code: ErrorCode): unknown {
  return { success: false, message: ERROR_EXAMPLE_MESSAGES[code], error: code };
}

/** Answers given for a path rather than an operation: an unknown path, a known path with another method. */
export function sharedResponses(): Record<string, unknown> {
  return {
    NotFound: {
      description: "No such path (any method).",
      content: { "application/json": { schema: errorSchema(["not_found"]), example: errorExample("not_found") } },
    },
    MethodNotAllowed: {
      description: "The path exists, but not with this method; `Allow` lists the methods it takes.",
      headers: { Allow: header("Allow", true) },
      content: { "application/json": { schema: errorSchema(["method_not_allowed"]), example: errorExample("method_not_allowed") } },
    },
  };
}

export function securitySchemes(): Record<string, unknown> {
  return {
    publishableKey: {
      type: "apiKey",
      in: "header",
      name: "X-API-KEY",
      description: "The publishable key (`svc_pk_…`): events ingest and recommend. Public by design (it may sit in a web page).",
    },
    secretKey: {
      type: "apiKey",
      in: "header",
      name: "X-API-KEY",
      description: "The secret key (`svc_sk_…`): item and user upserts. Keep it on a server.",
    },
    bearer: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description: "A dashboard token from /auth/register or /auth/login (HS256, 12 hours). The web dashboard's session cookie is accepted instead.",
    },
    metricsBearer: { type: "http", scheme: "bearer", description: "The server's `METRICS_TOKEN`." },
  };
}
