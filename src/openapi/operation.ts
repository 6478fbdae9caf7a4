import type { z } from "zod";
import type { ErrorCode } from "../errors.js";

/** Who may call an operation: nobody in particular, an API key of one type, a dashboard token, or the metrics token. */
export type Auth = "none" | "publishableKey" | "secretKey" | "bearer" | "metricsBearer";

/** A schema named as a component of the document (`#/components/schemas/<name>`). */
export interface Named {
  name: string;
  schema: z.ZodType;
}

/** A JSON body: one object, or (batch) one object or an array of 1 to MAX_RECORDS of them. */
export interface JsonBody {
  kind: "json";
  schema: Named;
  batch?: boolean;
  /** Defaults to the schema's first `.meta({ examples })` value. */
  example?: unknown;
}

/** A streamed file of records: CSV, NDJSON or a JSON array. */
export interface FileBody {
  kind: "file";
  schema: Named;
  csvExample: string;
}

/** A success answered with the envelope `{success: true, message, data}` (ingestion adds `error: null`). */
export interface EnvelopeSuccess {
  kind: "envelope";
  status: number;
  description: string;
  message: string;
  data: Named | null;
  example: unknown;
  ingest?: boolean;
  setsCookie?: boolean;
}

/** A success answered with a body of its own type (the metrics text, this description). */
export interface RawSuccess {
  kind: "raw";
  status: number;
  description: string;
  contentType: string;
  schema: Record<string, unknown>;
}

export interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Canonical path, parameters as `{name}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  /** Several: any one of them will do. */
  auth: Auth | readonly Auth[];
  /** Which rate limit the answers report in RateLimit-* headers: the organisation's (API key) or the client IP's. */
  rateLimit?: "key" | "ip";
  pathParams?: Record<string, { schema: z.ZodType; description: string; example: string }>;
  query?: z.ZodType;
  body?: JsonBody | FileBody;
  success: EnvelopeSuccess | RawSuccess;
  /** Every error code the operation can answer; each code's status comes from ERROR_STATUS. */
  errors: readonly ErrorCode[];
}

/** A JSON body read whole: too large, not JSON, wrong media type, or invalid. */
export const JSON_BODY_ERRORS: readonly ErrorCode[] = ["validation_error", "invalid_json", "payload_too_large", "unsupported_media_type"];
/** An API key checked, counted and matched to the operation's key type. */
export const API_KEY_ERRORS: readonly ErrorCode[] = ["missing_api_key", "invalid_api_key", "revoked_api_key", "wrong_key_type", "rate_limited"];
/** What any operation reading the database can meet besides its own errors. */
export const DATABASE_ERRORS: readonly ErrorCode[] = ["unavailable", "internal_error"];
