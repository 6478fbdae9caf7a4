import type { z } from "zod";

/**
 * The error catalog: every failure the API reports has one of these codes, one HTTP status, and one of the
 * code's messages, a template whose `{name}` placeholders the throw site fills (`appError("not_found",
 * "member", { id })`). Throw sites name a message instead of writing one, so the same failure reads the same
 * wherever it is raised, the wording can be reviewed in one place, and the README's list of codes
 * (test/docs/readme.test.ts) and the OpenAPI document (src/openapi/components.ts) are read from this table.
 * Clients rely on `error` (the code) and the status; the message is for people and may be reworded.
 */
export const ERRORS = {
  validation_error: {
    status: 400,
    messages: {
      /** The formatted issues of a schema (see validationError): `events[3].type: is required; …`. */
      fields: "{problems}",
      fieldsOfRecords: "{problems} ({invalid} invalid records in all)",
      noRecords: "{records}: expected at least one record",
      tooManyRecords: "{records}: at most {max} records per request, got {count}",
      notRecords: "body: expected a {record} object or an array of them",
      notObject: "body: expected a JSON object",
      bodyCut: "the client closed the connection before the body ended",
      csvEmpty: "the file is empty; expected a header row first",
      csvUnnamedColumn: "line 1: a column has no name",
      csvProtoColumn: "line 1: '__proto__' cannot be a column name",
      csvDuplicateColumn: "line 1: column '{column}' appears twice",
      csvMissingColumns: "line 1: the header lacks the column(s) {columns}",
      csvTooManyColumns: "line 1: the header has more than {max} columns; at most {max} are accepted (UPLOAD_MAX_COLUMNS)",
      jsonArrayEmpty: "the body is empty; expected a JSON array of records",
      jsonArrayExpected: "expected a JSON array of records ('[' first)",
    },
  },
  invalid_json: {
    status: 400,
    messages: {
      empty: "request body is empty; expected JSON",
      syntax: "request body is not valid JSON: {reason}",
    },
  },
  missing_api_key: {
    status: 401,
    messages: {
      header: "the X-API-KEY header is required",
      secretKeyOrAccount: "send the secret key in X-API-KEY, or a dashboard token of {roles}",
    },
  },
  invalid_api_key: {
    status: 401,
    messages: {
      prefix: "X-API-KEY must start with svc_pk_ or svc_sk_",
      unknown: "the API key is not valid",
    },
  },
  revoked_api_key: {
    status: 401,
    messages: { revoked: "the API key has been revoked" },
  },
  invalid_token: {
    status: 401,
    messages: {
      bearer: "the bearer token is missing, malformed, expired or not ours",
      bearerMissing: "an Authorization: Bearer <token> header is required",
      sessionMissing: "an Authorization: Bearer <token> header (or the dashboard's session cookie) is required",
      sessionEnded: "this session has ended (signed out, password changed or member removed); sign in again",
      accountRemoved: "this session has ended: the account was removed",
      cookieOrigin: "the session cookie is accepted only from this server's own pages",
      organisationGone: "the organisation behind this token no longer exists",
      accountGone: "the account behind this token no longer exists",
      invitation: "this invitation is unknown, used or expired; ask for a new one",
      resetToken: "this reset token is unknown, used or expired; ask for a new one",
      metrics: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>",
    },
  },
  invalid_credentials: {
    status: 401,
    messages: {
      login: "wrong email or password",
      oldPassword: "the old password is wrong",
    },
  },
  wrong_key_type: {
    status: 403,
    messages: {
      publishable: "this endpoint takes a publishable key (svc_pk_...); a secret key cannot be used here",
      secret: "this endpoint takes a secret key (svc_sk_...); a publishable key cannot be used here",
    },
  },
  forbidden_role: {
    status: 403,
    messages: {
      action: "role {role} cannot {action}; it needs one of {allowed}",
      grantOwner: "role {role} cannot grant or remove OWNER; only an OWNER can",
      removeOwner: "role {role} cannot remove an OWNER; only an OWNER can",
    },
  },
  quota_exceeded: {
    status: 403,
    messages: {
      /** The same words as the database's refusal (migration 013), which reaches clients through `refused`. */
      quota: "{measure} quota of {limit} reached (organisation has {has}, {what} adds {adds})",
      refused: "{reason}; nothing of this request was stored",
    },
  },
  unverified_user: {
    status: 403,
    messages: {
      hashMissing: "{field} needs user_hash: this organisation verifies identities (HMAC-SHA256 of the user id with its identity secret, in hex)",
      hashMismatch: "user_hash does not match {field}: it must be the hex HMAC-SHA256 of the user id with the organisation's identity secret",
      mergeNotAnonymous:
        "{at}.previous_user_id must be an anonymous id ({prefix}…): this organisation verifies identities, and only an anonymous history may be merged into a user",
    },
  },
  not_found: {
    status: 404,
    messages: {
      path: "no such path: {path}",
      metricsListener: "this listener serves only GET /metrics",
      erasure: "no erasure {id} in this organisation",
      experiment: "no experiment {id} in this organisation",
      keyPair: "no key pair {id} in this organisation",
      member: "no member {id} in this organisation",
      rule: "no rule {id} in this organisation",
      sdkBundle: "the browser build of the SDK is missing: run `npm run build`",
    },
  },
  method_not_allowed: {
    status: 405,
    messages: { method: "{method} is not allowed on {path}" },
  },
  conflict: {
    status: 409,
    messages: {
      lastOwnerDemoted: "the last OWNER cannot be demoted; make another member OWNER first",
      lastOwnerRemoved: "the last OWNER cannot be removed; make another member OWNER first",
      alreadyMember: "this email is already a member of this organisation",
      invitationsPending: "this organisation has {max} invitations waiting, the most it may; wait for some to be accepted or expire",
      keyPairsActive: "{max} key pairs are active already; revoke one before generating another",
      experimentRunning: "scenario {scenario} already has a running experiment ({id}); stop it first",
      identitySecretFirst: "generate the identity secret first (POST /v1/settings/identity-verification/secret), then turn verification on",
    },
  },
  payload_too_large: {
    status: 413,
    messages: {
      body: "request body exceeds {max} bytes",
      upload: "upload exceeds {max} bytes (UPLOAD_MAX_BYTES)",
      uploadRecord: "the record starting on line {line} is longer than {max} bytes (1 MiB)",
    },
  },
  unsupported_media_type: {
    status: 415,
    messages: {
      json: "request body must be application/json",
      upload: "upload body must be text/csv, application/x-ndjson or application/json (an array of records)",
    },
  },
  rate_limited: {
    status: 429,
    messages: {
      apiKey: "rate limit reached for this organisation; retry after the window resets",
      signIns: "too many sign-in attempts from this address; retry later",
      failedSignIns: "too many failed sign-ins for this email; retry later",
      memberAdditions: "too many member additions for this organisation; retry later",
      previews: "too many previews for this organisation; retry after the window resets",
      erasures: "{running} erasures of this organisation are still running (ERASURES_PENDING_MAX); retry when one is done",
      uploads: "this organisation already has {running} uploads running; at most {max} at once (UPLOAD_MAX_PER_ORG)",
    },
  },
  internal_error: {
    status: 500,
    messages: {
      unexpected: "internal server error",
      noBody: "route did not read a body",
      recordsRefused: "the database refused these records; nothing of this request was stored",
      rowsRefused: "the database refused these rows",
      uploadUnreadable: "the upload could not be read",
      uploadParserStopped: "the upload parser stopped; the rest of this upload was not read",
      uploadStopped: "the upload stopped unexpectedly",
      recommenderFailed: "the recommender failed on this request",
    },
  },
  /** Each says what is short, and that retrying shortly is the remedy (with Retry-After where the wait is known). */
  unavailable: {
    status: 503,
    messages: {
      database: "the database is unreachable; retry shortly",
      databaseNothingStored: "the database is unreachable; nothing was stored; retry shortly",
      notReadyDatabase: "not ready: the database is unreachable; retry shortly",
      notReadyIndex: "not ready: the recommender index is loading; retry shortly",
      shuttingDown: "the server is shutting down; nothing was stored; retry shortly",
      ingestSaturated: "ingestion is saturated; nothing was stored; retry shortly",
      passwordChecks: "too many passwords are being checked at once; retry shortly",
      unknownKeys: "too many unknown keys are being checked at once; retry shortly",
      uploads: "the server is running {running} uploads, its most at once; retry shortly",
      recommendQueue: "too many recommend requests of this organisation are waiting; retry shortly",
      indexLoading: "the recommender index is loading; retry shortly",
      recommenderLate: "the recommender did not answer in time; retry shortly",
      recommenderRestarted: "the recommender restarted; retry shortly",
      analyticsBusy: "too many analytics over time are being computed at once; retry shortly",
    },
  },
} as const satisfies Record<string, { status: number; messages: Record<string, string> }>;

/** Words added to another failure's message (`{message}; {addendum}`), whatever its code. */
const ADDENDA = {
  storedBefore: "{stored} rows before that were stored (uploading the file again is safe: rows are upserts)",
} as const;

export type ErrorCode = keyof typeof ERRORS;
export type MessageKey<C extends ErrorCode> = keyof (typeof ERRORS)[C]["messages"] & string;
type Template<C extends ErrorCode, K extends MessageKey<C>> = (typeof ERRORS)[C]["messages"][K] & string;

/** The `{name}` placeholders of a template, as a union of names. */
type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
type Params<S extends string> = Record<Placeholders<S>, string | number>;
/** A template without placeholders takes no parameters; one with them takes each by name. */
type ParamsArg<S extends string> = [Placeholders<S>] extends [never] ? [params?: Record<string, never>] : [params: Params<S>];

/** Each code's HTTP status, read from the catalog (the README's list and the OpenAPI document are checked against it). */
export const ERROR_STATUS = Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.status])) as {
  [C in ErrorCode]: (typeof ERRORS)[C]["status"];
};

function fill(template: string, params: Record<string, string | number> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (params && Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** An expected failure, carried as a value up to the one place that turns it into a response (src/http/respond.ts). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  /** Made by appError from the catalog; built directly only to carry one across a thread (src/upload/parseSession.ts). */
  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.headers = headers;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }

  /** The same failure, its message followed by one of the catalog's addenda. */
  adding<K extends keyof typeof ADDENDA>(key: K, ...params: ParamsArg<(typeof ADDENDA)[K]>): AppError {
    return new AppError(this.code, `${this.message}; ${fill(ADDENDA[key], params[0])}`, this.headers);
  }
}

/** The catalog's failure `code` with its message `key`, the placeholders filled from `params`. */
export function appError<C extends ErrorCode, K extends MessageKey<C>>(
  code: C,
  key: K,
  ...args: [...ParamsArg<Template<C, K>>, headers?: Record<string, string>]
): AppError {
  const template = (ERRORS[code].messages as Record<string, string>)[key]!;
  const [params, headers] = args as unknown as [Record<string, string | number> | undefined, Record<string, string> | undefined];
  return new AppError(code, fill(template, params), headers);
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** At most this many issues are named in one message; the rest are counted. */
export const MAX_REPORTED_ISSUES = 20;

/**
 * The one way schema issues become words: `where: what`, where `where` is the field's path from `at`
 * (`events[3].context.page`, or `whole` for the value itself) and `what` zod's message, with a missing field
 * said as `is required` and unknown fields named. Every validation_error of a schema, and every refused row of
 * an upload, reads this way.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], at = "", whole = "body"): string[] {
  return issues.map((i) => `${describePath(at, i.path) || whole}: ${issueMessage(i)}`);
}

/** 400 validation_error naming the problems (first MAX_REPORTED_ISSUES), and how many records failed when that many are named. */
export function validationError(problems: readonly string[], invalidRecords = 0): AppError {
  const named = problems.slice(0, MAX_REPORTED_ISSUES).join("; ");
  return problems.length >= MAX_REPORTED_ISSUES && invalidRecords > 0
    ? appError("validation_error", "fieldsOfRecords", { problems: named, invalid: invalidRecords })
    : appError("validation_error", "fields", { problems: named });
}

/** 400 validation_error for a value a schema refused, its issues described from `at`. */
export function schemaError(error: z.ZodError, at = ""): AppError {
  return validationError(describeIssues(error.issues, at));
}

function describePath(at: string, path: ReadonlyArray<PropertyKey>): string {
  let out = at;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(", ")}`;
  // A missing field has no input; zod's own "received undefined" message tells it from a failed refinement.
  if (issue.code === "invalid_type" && issue.input === undefined && issue.message.includes("received undefined")) return "is required";
  return issue.message;
}
