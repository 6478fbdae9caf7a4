import { ERROR_STATUS, type ErrorCode } from "../errors.js";
import { errorExample, errorSchema, header, RATE_LIMIT_HEADER_NAMES } from "./components.js";
import type { EnvelopeSuccess, Operation } from "./operation.js";
import type { SchemaRegistry } from "./schemaRegistry.js";

/** Every response of an operation: its success, then each error status with the codes it can carry there. */
export function responses(op: Operation, registry: SchemaRegistry): Record<string, unknown> {
  const out: Record<string, unknown> = { [op.success.status]: success(op, registry) };
  for (const [status, codes] of errorsByStatus(op.errors)) {
    out[status] = {
      description: `Error: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
      headers: headers(op, status),
      content: {
        "application/json": {
          schema: errorSchema(codes),
          examples: Object.fromEntries(codes.map((c) => [c, { value: errorExample(c) }])),
        },
      },
    };
  }
  return out;
}

export function errorsByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

function success(op: Operation, registry: SchemaRegistry): unknown {
  const s = op.success;
  const head = { description: s.description, headers: headers(op, s.status) };
  if (s.kind === "raw") return { ...head, content: { [s.contentType]: { schema: s.schema } } };
  return { ...head, content: { "application/json": { schema: envelope(s, registry), example: envelopeExample(s) } } };
}

/** `{success: true, message, data}`; ingestion answers add `error: null`. */
function envelope(s: EnvelopeSuccess, registry: SchemaRegistry): unknown {
  const properties: Record<string, unknown> = {
    success: { const: true },
    message: { type: "string" },
    data: s.data ? registry.refTo(s.data) : { type: "null" },
  };
  if (s.ingest) properties.error = { type: "null" };
  return { type: "object", required: Object.keys(properties), properties, additionalProperties: false };
}

function envelopeExample(s: EnvelopeSuccess): unknown {
  const body = { success: true, message: s.message, data: s.example };
  return s.ingest ? { ...body, error: null } : body;
}

/**
 * The headers of one response. API-key routes report the organisation's limit once the key is known (so not
 * on a 401); /auth/register and /auth/login report the client IP's on every answer. A 500 may come first.
 */
function headers(op: Operation, status: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const limited = op.rateLimit === "ip" || (op.rateLimit === "key" && status !== 401);
  if (limited) for (const name of RATE_LIMIT_HEADER_NAMES) out[name] = header(name, status !== 500);
  if (status === 429) out["Retry-After"] = header("Retry-After", true);
  if (op.success.kind === "envelope" && op.success.setsCookie && status === op.success.status) out["Set-Cookie"] = header("Set-Cookie", true);
  return out;
}
