export interface LimitPolicy {
  max: number;
  windowS: number;
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetS: number;
  policy: string;
}

/**
 * Counts requests per key (an organisation's seq, or a client IP) against `max` per window of `windowS`.
 * In memory for one process (RateLimiter), or leased from PostgreSQL when several share the limit
 * (LeasedRateLimiter, CLUSTER=1): callers do not care which.
 */
export interface Limiter {
  /** Counts one request at once; undefined when this process must first ask PostgreSQL for quota (then call count). */
  tryCount(key: string | number, max: number, windowS: number): LimitResult | undefined;
  /** Counts one request, waiting for quota when tryCount could not. */
  count(key: string | number, max: number, windowS: number): Promise<LimitResult>;
}

/** Every key on the default limit shares one policy string; rebuilt only when the limit differs. */
export class PolicyText {
  private last = { max: NaN, windowS: NaN, text: "" };

  of(max: number, windowS: number): string {
    if (max !== this.last.max || windowS !== this.last.windowS) this.last = { max, windowS, text: `${max};w=${windowS}` };
    return this.last.text;
  }
}

interface Window {
  startedAt: number;
  count: number;
}

const SWEEP_EVERY = 10_000;

/** Fixed windows per key, counted in memory by the front thread; a window starts at the key's first request. */
export class RateLimiter implements Limiter {
  private readonly windows = new Map<string | number, Window>();
  private hits = 0;
  private readonly policy = new PolicyText();

  constructor(private readonly now: () => number = () => Date.now()) {}

  count(key: string | number, max: number, windowS: number): Promise<LimitResult> {
    return Promise.resolve(this.tryCount(key, max, windowS));
  }

  tryCount(key: string | number, max: number, windowS: number): LimitResult {
    const now = this.now();
    const windowMs = windowS * 1000;
    let w = this.windows.get(key);
    if (!w || now - w.startedAt >= windowMs) {
      w = { startedAt: now, count: 0 };
      this.windows.set(key, w);
    }
    if (++this.hits % SWEEP_EVERY === 0) this.sweep(now, windowMs);
    const allowed = w.count < max;
    if (allowed) w.count++;
    return {
      allowed,
      limit: max,
      remaining: Math.max(0, max - w.count),
      resetS: Math.max(1, Math.ceil((w.startedAt + windowMs - now) / 1000)),
      policy: this.policy.of(max, windowS),
    };
  }

  /** Drops ended windows so that the map does not grow with every IP ever seen. */
  private sweep(now: number, windowMs: number): void {
    for (const [k, w] of this.windows) if (now - w.startedAt >= windowMs) this.windows.delete(k);
  }
}

export function rateLimitHeaders(r: LimitResult): Array<[string, string]> {
  return [
    ["RateLimit-Limit", String(r.limit)],
    ["RateLimit-Remaining", String(r.remaining)],
    ["RateLimit-Reset", String(r.resetS)],
    ["RateLimit-Policy", r.policy],
  ];
}
