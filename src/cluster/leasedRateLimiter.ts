import { PolicyText, type LimitResult, type Limiter } from "../auth/rateLimit.js";
import { isUnavailable } from "../wire/pgErrors.js";
import { log } from "../wire/log.js";
import type { QuotaKey, QuotaStore } from "./quotaStore.js";

/** A request waits this long for a lease; past it, the limiter counts locally as in an outage. */
const LEASE_WAIT_MS = 2000;
/** During an outage, one lease is tried again at most this often (by the next request, without waiting). */
const RETRY_EVERY_MS = 1000;
/** Ended windows are swept once per this many new windows. */
const SWEEP_EVERY = 10_000;
/** Keys held at most (organisations and client IPs with a window open in this process). */
const KEYS_MAX = 100_000;
/** A forwarded client address longer than this is no address; it is cut so that a row's key stays small. */
const SCOPE_MAX = 64;

/** One key's window as this process sees it. */
interface Quota {
  key: QuotaKey;
  max: number;
  windowEndMs: number;
  /** Leased to this process and not yet admitted. */
  tokens: number;
  /** Admitted by this process in the window (leased, or counted locally during an outage). */
  admitted: number;
  /** Leased to this process in the window. */
  leased: number;
  /** Leased to the other processes, as last learned from PostgreSQL. */
  othersUsed: number;
  lastGrant: number;
  /** Requests waiting for the lease in flight. */
  waiting: number;
  leasing: Promise<void> | undefined;
}

/**
 * The rate limit shared by every process on one PostgreSQL (CLUSTER=1). Windows are fixed and aligned to the
 * epoch (floor(now / window)), so they mean the same in every process whose clock is synchronised (NTP). Each
 * process leases quota from rate_limit_quota in chunks (QuotaStore) and admits from its chunk without a round
 * trip, fetching the next chunk when half of the last is spent; only a request that finds no quota at all
 * waits. PostgreSQL never grants past the max, so the processes together admit at most the max per window.
 *
 * RateLimit-Remaining is the window's quota as last learned from PostgreSQL (what is not leased, plus what this
 * process still holds) minus what this process admitted since: it lags by what the others admitted since this
 * process last leased, and counts what they hold unspent as spent.
 *
 * When PostgreSQL does not answer, each process counts on its own against the max, less what the others had
 * leased when last heard of, until a lease succeeds again: requests never fail because of the limiter, and
 * during an outage the processes together may admit up to their number times the max.
 */
export class LeasedRateLimiter implements Limiter {
  private readonly quotas = new Map<string | number, Quota>();
  private readonly policy = new PolicyText();
  private windowsOpened = 0;
  private offline = false;
  private retryAtMs = 0;

  constructor(
    private readonly store: QuotaStore,
    /** Named in the outage warnings: "organisation" or "sign-in". */
    private readonly name: string,
    private readonly now: () => number = () => Date.now(),
  ) {}

  tryCount(key: string | number, max: number, windowS: number): LimitResult | undefined {
    const now = this.now();
    const q = this.quota(key, max, windowS, now);
    return this.admit(q, now);
  }

  async count(key: string | number, max: number, windowS: number): Promise<LimitResult> {
    for (;;) {
      const now = this.now();
      const q = this.quota(key, max, windowS, now);
      const result = this.admit(q, now);
      if (result) return result;
      q.waiting++;
      try {
        await (q.leasing ?? this.lease(q));
      } finally {
        q.waiting--;
      }
    }
  }

  /** Admits from the chunk held, refuses when the window's quota is spent, or undefined: a lease is needed. */
  private admit(q: Quota, now: number): LimitResult | undefined {
    if (q.tokens > 0) {
      q.tokens--;
      q.admitted++;
      if (q.tokens <= q.lastGrant >> 1 && q.leasing === undefined && !this.offline && q.othersUsed + q.leased < q.max) void this.lease(q);
      return this.result(q, true, now);
    }
    const spent = q.othersUsed + q.admitted >= q.max;
    if (spent || this.offline) {
      if (this.offline && now >= this.retryAtMs && q.leasing === undefined) {
        this.retryAtMs = now + RETRY_EVERY_MS;
        void this.lease(q);
      }
      if (!spent) q.admitted++;
      return this.result(q, !spent, now);
    }
    return undefined;
  }

  private result(q: Quota, allowed: boolean, now: number): LimitResult {
    return {
      allowed,
      limit: q.max,
      remaining: Math.max(0, q.max - q.othersUsed - q.admitted),
      resetS: Math.max(1, Math.ceil((q.windowEndMs - now) / 1000)),
      policy: this.policy.of(q.max, q.key.windowS),
    };
  }

  /** The key's current window, a new one when the last ended or the key's limit changed. */
  private quota(key: string | number, max: number, windowS: number, now: number): Quota {
    let q = this.quotas.get(key);
    if (q !== undefined && now < q.windowEndMs && q.max === max && q.key.windowS === windowS) return q;
    const windowMs = windowS * 1000;
    const startMs = Math.floor(now / windowMs) * windowMs;
    q = {
      key: {
        org: typeof key === "number" ? key : 0,
        scope: typeof key === "number" ? "" : key.slice(0, SCOPE_MAX),
        windowS,
        windowStart: startMs / 1000,
      },
      max,
      windowEndMs: startMs + windowMs,
      tokens: 0,
      admitted: 0,
      leased: 0,
      othersUsed: 0,
      lastGrant: 0,
      waiting: 0,
      leasing: undefined,
    };
    this.quotas.delete(key);
    this.quotas.set(key, q);
    if (++this.windowsOpened % SWEEP_EVERY === 0 || this.quotas.size > KEYS_MAX) this.sweep(now);
    return q;
  }

  /**
   * Asks PostgreSQL for the next chunk; resolves (never rejects) once it is applied, or failed, or
   * LEASE_WAIT_MS passed: the waiting requests then count locally.
   */
  private lease(q: Quota): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const asked = this.store.lease(q.key, q.max, Math.max(1, q.waiting)).then(
      (l) => this.apply(q, l.used, l.granted),
      (err: unknown) => this.wentOffline(err),
    );
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.wentOffline(new Error(`no answer within ${LEASE_WAIT_MS} ms`));
        resolve();
      }, LEASE_WAIT_MS);
    });
    const leasing = Promise.race([asked, late]).finally(() => {
      clearTimeout(timer);
      if (q.leasing === leasing) q.leasing = undefined;
    });
    q.leasing = leasing;
    return leasing;
  }

  private apply(q: Quota, used: number, granted: number): void {
    if (this.offline) {
      this.offline = false;
      log.info("rate-limit quota: PostgreSQL answers again; the limit is shared again", { limit: this.name });
    }
    q.tokens += granted;
    q.leased += granted;
    q.lastGrant = granted;
    // Two leases can be in flight after a timeout; the later answer knows more, so the count only grows.
    q.othersUsed = Math.max(q.othersUsed, used - q.leased);
  }

  private wentOffline(err: unknown): void {
    // Warned once per outage; the retries' failures go to the debug log.
    if (this.offline) return log.debug("rate-limit quota: lease failed again", { limit: this.name, error: (err as Error).message });
    this.offline = true;
    this.retryAtMs = this.now() + RETRY_EVERY_MS;
    const fields = { limit: this.name, error: (err as Error).message };
    const why = "rate-limit quota: PostgreSQL does not answer; counting locally against the max until it does";
    if (isUnavailable(err) || !(err as { code?: string }).code) log.warn(why, fields);
    else log.error(why, fields);
  }

  /**
   * Drops ended windows, then the oldest keys down to 90 % of the bound (so that a flood of new addresses
   * sweeps once per 10,000 keys, not at every one): the map does not grow with every IP ever seen.
   */
  private sweep(now: number): void {
    for (const [k, q] of this.quotas) if (now >= q.windowEndMs && q.leasing === undefined) this.quotas.delete(k);
    for (const k of this.quotas.keys()) {
      if (this.quotas.size <= KEYS_MAX * 0.9) break;
      this.quotas.delete(k);
    }
  }
}
