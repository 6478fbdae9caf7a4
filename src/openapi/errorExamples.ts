import { appError, type ErrorCode } from "../errors.js";

/**
 * A message each code may come with, for the description's examples, made from the catalog's templates so that
 * the examples read as real answers do (a Record: a new code does not compile without one).
 */
export const ERROR_EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  validation_error: appError("validation_error", "fields", {
    problems: 'events[3].event_family: Invalid option: expected one of "exposure"|"engagement"|"conversion"|"system"',
  }).message,
  invalid_json: appError("invalid_json", "syntax", { reason: "Unexpected end of JSON input" }).message,
  missing_api_key: appError("missing_api_key", "header").message,
  invalid_api_key: appError("invalid_api_key", "unknown").message,
  revoked_api_key: appError("revoked_api_key", "revoked").message,
  invalid_token: appError("invalid_token", "bearer").message,
  invalid_credentials: appError("invalid_credentials", "login").message,
  wrong_key_type: appError("wrong_key_type", "publishable").message,
  forbidden_role: appError("forbidden_role", "action", { role: "MEMBER", action: "generate keys", allowed: "OWNER, ADMIN" }).message,
  quota_exceeded: appError("quota_exceeded", "refused", {
    reason: appError("quota_exceeded", "quota", { measure: "items", limit: 100000, has: 99990, what: "request", adds: 20 }).message,
  }).message,
  unverified_user: appError("unverified_user", "hashMissing", { field: "user_id" }).message,
  not_found: appError("not_found", "keyPair", { id: "7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a090" }).message,
  method_not_allowed: appError("method_not_allowed", "method", { method: "GET", path: "/v1/events/ingest" }).message,
  conflict: appError("conflict", "keyPairsActive", { max: 2 }).message,
  payload_too_large: appError("payload_too_large", "body", { max: 5242880 }).message,
  unsupported_media_type: appError("unsupported_media_type", "json").message,
  rate_limited: appError("rate_limited", "apiKey").message,
  internal_error: appError("internal_error", "unexpected").message,
  unavailable: appError("unavailable", "database").message,
};
