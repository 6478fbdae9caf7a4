import type { ErrorCode } from "../errors.js";

/** The service's error codes, plus the two a client meets before any answer: no connection, no answer in time. */
export type ClientErrorCode = ErrorCode | "network_error" | "timeout";

/** A failed call: the service's code and message, the HTTP status (0 when no answer came) and, for a 429, how long to wait. */
export class RecommendationServiceError extends Error {
  override readonly name = "RecommendationServiceError";

  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly status: number,
    /** From `Retry-After` (or `RateLimit-Reset`) on a 429, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export function isServiceError(err: unknown): err is RecommendationServiceError {
  return err instanceof RecommendationServiceError;
}
