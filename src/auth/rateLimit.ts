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
  private lastPolicy = { max: NaN, windowS: NaN, text: "" };

  constructor(private readonly now: () => number = () => Date.now()) {}

  hit(key: string | number, policy: LimitPolicy): LimitResult {
    return this.count(key, policy.max, policy.windowS);
  }

  /** hit() without a policy object: the per-request path of key-authenticated calls. */
  count(key: string | number, max: number, windowS: number): LimitResult {
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
      policy: this.policyText(max, windowS),
    };
  }

  /** Every organisation on the default limit shares one policy string; rebuilt only when the limit differs. */
  private policyText(max: number, windowS: number): string {
    if (max !== this.lastPolicy.max || windowS !== this.lastPolicy.windowS) this.lastPolicy = { max, windowS, text: `${max};w=${windowS}` };
    return this.lastPolicy.text;
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
