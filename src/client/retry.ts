import type { RecommendationServiceError } from "./errors.js";

/** Backoff after a failure that may pass: 5xx, no answer, no answer in time. */
export interface Backoff {
  /** The first retry waits up to this long (default 500 ms)... */
  baseMs: number;
  /** ...each next one up to twice as long, never more than this (default 30 s). */
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 500, maxMs: 30_000 };

export type Verdict = { kind: "retry"; delayMs: number } | { kind: "split" } | { kind: "fail" };

/**
 * What to do after a failed send. A 429 waits for what the service said; a 5xx or a lost answer backs off
 * exponentially with full jitter (a random wait in [0, cap]), so clients that failed together retry apart;
 * a 413 asks for a smaller batch; anything else (400, 401, 403, ...) will fail again and is never retried.
 */
export function verdict(err: RecommendationServiceError, attempt: number, backoff: Backoff, random: () => number = Math.random): Verdict {
  if (err.status === 429 && err.retryAfterMs !== undefined) return { kind: "retry", delayMs: err.retryAfterMs + spread(err.retryAfterMs, random) };
  if (err.status === 429) return { kind: "retry", delayMs: jittered(attempt, backoff, random) };
  if (err.status === 413) return { kind: "split" };
  if (err.status === 0 || err.status >= 500) return { kind: "retry", delayMs: jittered(attempt, backoff, random) };
  return { kind: "fail" };
}

/** Up to a tenth of the wait, at most 1 s, so clients told the same reset time do not all return in the same instant. */
function spread(waitMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(1000, waitMs / 10));
}

export function jittered(attempt: number, backoff: Backoff, random: () => number): number {
  const cap = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * cap);
}
