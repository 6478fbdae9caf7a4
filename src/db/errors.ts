import { appError, AppError } from "../errors.js";
import { isUnavailable } from "../wire/pgErrors.js";

/** Turns database outages into 503 `unavailable`; anything else stays an internal error. */
export function toAppError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (isUnavailable(err)) return appError("unavailable", "database");
  return err;
}
