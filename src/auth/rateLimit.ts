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

interface Window {
  startedAt: number;
  count: number;
}

const SWEEP_EVERY = 10_000;

/** Fixed windows per key (an organisation, or a client IP), counted in memory by the front thread. */
export class RateLimiter {
  private readonly windows = new Map<string | number, Window>();
  private hits = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  hit(key: string | number, policy: LimitPolicy): LimitResult {
    const now = this.now();
    const windowMs = policy.windowS * 1000;
    let w = this.windows.get(key);
    if (!w || now - w.startedAt >= windowMs) {
      w = { startedAt: now, count: 0 };
      this.windows.set(key, w);
    }
    if (++this.hits % SWEEP_EVERY === 0) this.sweep(now, windowMs);
    const allowed = w.count < policy.max;
    if (allowed) w.count++;
    return {
      allowed,
      limit: policy.max,
      remaining: Math.max(0, policy.max - w.count),
      resetS: Math.max(1, Math.ceil((w.startedAt + windowMs - now) / 1000)),
      policy: `${policy.max};w=${policy.windowS}`,
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
