import { IdentityVerificationSchema, NewIdentitySecretSchema, SetIdentityVerificationSchema } from "../../accounts/identitySettings.js";
import { RateLimitSchema, SetRateLimitSchema } from "../../accounts/rateLimitSettings.js";
import { RetentionSchema, SetRetentionSchema } from "../../accounts/retentionSettings.js";
import { DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const TOKEN_ERRORS = ["invalid_token", "forbidden_role", ...DATABASE_ERRORS] as const;
const SETTINGS = { name: "IdentityVerification", schema: IdentityVerificationSchema };
const WHAT =
  "With identity verification on, publishable-key requests prove a signed-in user: `user_hash` = hex HMAC-SHA256 of the `user_id` keyed with the identity secret, computed by the site's server. " +
  "Then a recommend request with a `user_id` not starting `anon-`, or an `identify` event of one, without the right hash is 403 `unverified_user`; anonymous ids need none.";

const RETENTION = { name: "Retention", schema: RetentionSchema };
const RETENTION_WHAT =
  "Events are kept for a number of days from their arrival: the service's `EVENTS_RETENTION_DAYS` (400 by default), or the organisation's own shorter value. " +
  "Expired events leave PostgreSQL by week (see docs/operations.md); a restart of the service rebuilds recommendations from the events still stored.";

const RATE_LIMIT = { name: "RateLimit", schema: RateLimitSchema };
const RATE_LIMIT_EXAMPLE = {
  rate_limit_max: 5000,
  rate_limit_window_s: 900,
  service_max: 1000,
  service_window_s: 900,
  effective_max: 5000,
  effective_window_s: 900,
};
const RATE_LIMIT_WHAT =
  "Every request made with the organisation's API keys (publishable and secret together, recommend calls included) counts against one limit per window: " +
  "the service's `RATE_LIMIT_MAX` per `RATE_LIMIT_WINDOW_S` (1,000 per 900 s by default), or the organisation's own; past it, 429 `rate_limited` with `Retry-After`.";

export const SETTINGS_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/settings/rate-limit",
    operationId: "getRateLimit",
    tag: "Settings",
    summary: "Read the API keys' rate limit",
    description: `OWNER or ADMIN. ${RATE_LIMIT_WHAT}`,
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "The organisation's limit, the service's, and the one that applies.",
      message: "rate limit",
      data: RATE_LIMIT,
      example: RATE_LIMIT_EXAMPLE,
    },
    errors: TOKEN_ERRORS,
  },
  {
    method: "patch",
    path: "/v1/settings/rate-limit",
    operationId: "setRateLimit",
    tag: "Settings",
    summary: "Set the API keys' rate limit",
    description:
      "OWNER or ADMIN; audited as `rate_limit.changed`. `rate_limit_max` from 1 to 1,000,000 requests per window of `rate_limit_window_s` from 60 to 86,400 seconds; " +
      "null for either takes the service's. Takes effect in every process of the service within about a second (the keys' cache hears of it by NOTIFY); " +
      "the requests already counted in the current window count against the new limit.",
    auth: "bearer",
    body: { kind: "json", schema: { name: "SetRateLimit", schema: SetRateLimitSchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The rate limit as it now is.",
      message: "rate limit set",
      data: RATE_LIMIT,
      example: RATE_LIMIT_EXAMPLE,
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS],
  },
  {
    method: "get",
    path: "/v1/settings/retention",
    operationId: "getRetention",
    tag: "Settings",
    summary: "Read the retention of events",
    description: `OWNER or ADMIN. ${RETENTION_WHAT}`,
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "The organisation's retention, the service's, and the one that applies.",
      message: "retention",
      data: RETENTION,
      example: { events_retention_days: 90, service_retention_days: 400, effective_days: 90 },
    },
    errors: TOKEN_ERRORS,
  },
  {
    method: "patch",
    path: "/v1/settings/retention",
    operationId: "setRetention",
    tag: "Settings",
    summary: "Set the retention of events",
    description:
      "OWNER or ADMIN; audited. `events_retention_days` from 1 to the service's `EVENTS_RETENTION_DAYS` (400 by default; longer is 400 `validation_error`), or null for the service's. " +
      "Applied by the service's retention task within `EVENTS_RETENTION_CHECK_S` (an hour by default): the organisation's events leave each week received wholly longer ago, deleted in bounded chunks.",
    auth: "bearer",
    body: { kind: "json", schema: { name: "SetRetention", schema: SetRetentionSchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The retention as it now is.",
      message: "retention set",
      data: RETENTION,
      example: { events_retention_days: 90, service_retention_days: 400, effective_days: 90 },
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS],
  },
  {
    method: "get",
    path: "/v1/settings/identity-verification",
    operationId: "getIdentityVerification",
    tag: "Settings",
    summary: "Read identity verification",
    description: `OWNER or ADMIN. ${WHAT}`,
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 200,
      description: "Whether it is on, and whether a secret exists (the secret itself is never shown again).",
      message: "identity verification",
      data: SETTINGS,
      example: { enabled: true, has_secret: true, secret_rotated_at: EXAMPLE.at },
    },
    errors: TOKEN_ERRORS,
  },
  {
    method: "patch",
    path: "/v1/settings/identity-verification",
    operationId: "setIdentityVerification",
    tag: "Settings",
    summary: "Turn identity verification on or off",
    description:
      "OWNER or ADMIN; audited. Turning it on before a secret was generated is 409 `conflict`. Every server process applies the change within about a second.",
    auth: "bearer",
    body: { kind: "json", schema: { name: "SetIdentityVerification", schema: SetIdentityVerificationSchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The setting as it now is.",
      message: "identity verification on",
      data: SETTINGS,
      example: { enabled: true, has_secret: true, secret_rotated_at: EXAMPLE.at },
    },
    errors: [...TOKEN_ERRORS, ...JSON_BODY_ERRORS, "conflict"],
  },
  {
    method: "post",
    path: "/v1/settings/identity-verification/secret",
    operationId: "rotateIdentitySecret",
    tag: "Settings",
    summary: "Generate or rotate the identity secret",
    description:
      "OWNER or ADMIN; audited. The secret appears in this answer only; a new one replaces the old at once (deploy it to your servers as you rotate). Does not turn verification on.",
    auth: "bearer",
    success: {
      kind: "envelope",
      status: 201,
      description: "The new secret.",
      message: "identity secret generated; store it on your server now, it is not shown again",
      data: { name: "NewIdentitySecret", schema: NewIdentitySecretSchema },
      example: { secret: "4f1c2a9be07d53c8a6e1f0b9d2c4e7a15b3d8f6c0a9e2b7d4c1f5a8e3b6d9c0f", enabled: false, secret_rotated_at: EXAMPLE.at },
    },
    errors: TOKEN_ERRORS,
  },
];
