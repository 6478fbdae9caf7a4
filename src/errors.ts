/** The error catalog: every failure the API reports has one of these codes, and one HTTP status. */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  revoked_api_key: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  wrong_key_type: 403,
  forbidden_role: 403,
  quota_exceeded: 403,
  unverified_user: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure, carried as a value up to the one place that turns it into a response. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
