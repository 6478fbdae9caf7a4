import type { ErrorCode } from "../errors.js";

/** A message each code may come with, for the description's examples (a Record: a new code does not compile without one). */
export const ERROR_EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  validation_error: 'events[3].event_family: Invalid option: expected one of "exposure"|"engagement"|"conversion"|"system"',
  invalid_json: "request body is not valid JSON: Unexpected end of JSON input",
  missing_api_key: "the X-API-KEY header is required",
  invalid_api_key: "the API key is not valid",
  revoked_api_key: "the API key has been revoked",
  invalid_token: "the bearer token is missing, malformed, expired or not ours",
  invalid_credentials: "wrong email or password",
  wrong_key_type: "this endpoint takes a publishable key (svc_pk_...); a secret key cannot be used here",
  forbidden_role: "role MEMBER cannot generate keys; it needs one of OWNER, ADMIN",
  quota_exceeded: "items quota of 100000 reached (organisation has 99990, request adds 20)",
  unverified_user: "user_id needs user_hash: this organisation verifies identities (HMAC-SHA256 of the user id with its identity secret, in hex)",
  not_found: "no key pair 7e6d5c4b-3a29-4817-a6f5-e4d3c2b1a090 in this organisation",
  method_not_allowed: "GET is not allowed on /v1/events/ingest",
  conflict: "2 key pairs are active already; revoke one before generating another",
  payload_too_large: "request body exceeds 5242880 bytes",
  unsupported_media_type: "request body must be application/json",
  rate_limited: "rate limit reached for this organisation; retry after the window resets",
  internal_error: "internal server error",
  unavailable: "the database is unreachable; try again shortly",
};
