/** SQLSTATE classes and socket errors that mean "the database is not there", not "the query is wrong". */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string") {
    if (/^(08|57P|53)/.test(e.code)) return true;
    if (["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"].includes(e.code)) return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed/i.test(
    e?.message ?? "",
  );
}

export const UNIQUE_VIOLATION = "23505";

export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === UNIQUE_VIOLATION;
}

/** Raised by migration 013's triggers when a statement would take an organisation past a quota. */
export const QUOTA_EXCEEDED = "RQ403";

export function isQuotaExceeded(err: unknown): boolean {
  return (err as { code?: string })?.code === QUOTA_EXCEEDED;
}
