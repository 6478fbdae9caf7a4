import { PolicyText, type LimitResult, type Limiter } from "../auth/rateLimit.js";
import { isUnavailable } from "../wire/pgErrors.js";
import { log } from "../wire/log.js";
import type { QuotaKey, QuotaStore } from "./quotaStore.js";

/** A request waits this long for a lease; past it, the limiter counts locally as in an outage. */
const LEASE_WAIT_MS = 2000;
/** During an outage, one lease is tried again at most this often (by the next request, without waiting). */
const RETRY_EVERY_MS = 1000;
/**
 * Unspent quota is given back once its key admitted nothing for a whole turn of this timer (so for 2.5 to 5 s).
 * Long enough that a key getting a request every few seconds at this process keeps its chunk and pays no round
 * trip (a sparser key pays one lease per request, which at that rate costs nothing); short enough that quota
 * stranded by a process that stopped getting a key's traffic is back in PostgreSQL within seconds, small
 * against windows of minutes (RATE_LIMIT_WINDOW_S defaults to 900).
 */
export const GIVE_BACK_EVERY_MS = 2500;
/**
 * A process refusing a key's requests asks PostgreSQL again after this long (doubling up to RECHECK_MAX_MS while
 * nothing comes back), without holding up the request: the others may have given quota back.
 */
const RECHECK_MS = 250;
const RECHECK_MAX_MS = 8000;
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
  /** The lease, or the give-back, in flight: one statement at a time per key, so that their answers are in order. */
  inFlight: Promise<void> | undefined;
  /** Leases asked in the window; othersUsed is learned only from an answer to a later one than the last learned from. */
  asked: number;
  learnedFrom: number;
  /** When a refused request may next ask PostgreSQL for quota given back, and the current back-off. */
  recheckAtMs: number;
  recheckMs: number;
}

/**
 * The rate limit shared by every process on one PostgreSQL (CLUSTER=1). Windows are fixed and aligned to the
 * epoch (floor(now / window)), so they mean the same in every process whose clock is synchronised (NTP). Each
 * process leases quota from rate_limit_quota in chunks (QuotaStore) and admits from its chunk without a round
 * trip, fetching the next chunk when half of the last is spent; only a request that finds no quota at all
 * waits. PostgreSQL never grants past the max, so the processes together admit at most the max per window.
 *
 * A key that admitted nothing here for 2.5 to 5 s gives back the chunk it holds (one timer for all keys, one
 * statement for all the idle ones), so that a process that stops getting an organisation's traffic strands no
 * quota: the busy processes lease it. A process refusing a key asks again now and then (without making the
 * request wait), since quota may have been given back after it found the window spent.
 *
 * RateLimit-Remaining is the window's quota as last learned from PostgreSQL (what is not leased, plus what this
 * process still holds) minus what this process admitted since: it lags by what the others admitted since this
 * process last leased, and counts what they hold unspent as spent. What this process gives back leaves its
 * Remaining as it was (the tokens are no longer its own, but not spent either); what the others give back
 * raises it at this process's next lease.
 *
 * When PostgreSQL does not answer, each process counts on its own against the max, less what the others had
 * leased when last heard of, until a lease succeeds again: requests never fail because of the limiter, and
 * during an outage the processes together may admit up to their number times the max.
 */
export class LeasedRateLimiter implements Limiter {
  private readonly quotas = new Map<string | number, Quota>();
  private readonly policy = new PolicyText();
  /** Windows holding unspent tokens, with what each had admitted at the timer's last turn (-1: not seen yet). */
  private readonly holding = new Map<Quota, number>();
  private readonly timer: NodeJS.Timeout;
  private windowsOpened = 0;
  private offline = false;
  private retryAtMs = 0;

  constructor(
    private readonly store: QuotaStore,
    /** Named in the outage warnings: "organisation" or "sign-in". */
    private readonly name: string,
    private readonly now: () => number = () => Date.now(),
    giveBackEveryMs = GIVE_BACK_EVERY_MS,
  ) {
    this.timer = setInterval(() => this.giveBackIdle(), giveBackEveryMs);
    this.timer.unref();
  }

  /** At shutdown: once the leases in flight have landed, gives back every unspent token held. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    const inFlight = new Set<Promise<void>>();
    for (const q of [...this.quotas.values(), ...this.holding.keys()]) if (q.inFlight) inFlight.add(q.inFlight);
    await Promise.all(inFlight);
    const now = this.now();
    const held = [...this.holding.keys()].filter((q) => q.tokens > 0 && now < q.windowEndMs && q.inFlight === undefined);
    if (!this.offline && held.length > 0) await this.giveBack(held);
  }

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
        // A give-back in flight took the tokens: the lease comes after it.
        await (q.inFlight ?? this.lease(q));
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
      if (q.tokens <= q.lastGrant >> 1 && q.inFlight === undefined && !this.offline && q.othersUsed + q.leased < q.max) void this.lease(q);
      return this.result(q, true, now);
    }
    const spent = q.othersUsed + q.admitted >= q.max;
    if (spent || this.offline) {
      if (this.offline && now >= this.retryAtMs && q.inFlight === undefined) {
        this.retryAtMs = now + RETRY_EVERY_MS;
        void this.lease(q);
      } else if (!this.offline && now >= q.recheckAtMs && q.inFlight === undefined && q.admitted < q.max) {
        q.recheckAtMs = now + RECHECK_MS;
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
      inFlight: undefined,
      asked: 0,
      learnedFrom: 0,
      recheckAtMs: 0,
      recheckMs: 0,
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
    const seq = ++q.asked;
    const asked = this.store.lease(q.key, q.max, Math.max(1, q.waiting)).then(
      (l) => this.apply(q, seq, l.used, l.granted),
      (err: unknown) => this.wentOffline(err),
    );
    return this.inFlight([q], asked, () => this.wentOffline(new Error(`no answer within ${LEASE_WAIT_MS} ms`)));
  }

  private apply(q: Quota, seq: number, used: number, granted: number): void {
    if (this.offline) {
      this.offline = false;
      log.info("rate-limit quota: PostgreSQL answers again; the limit is shared again", { limit: this.name });
    }
    q.tokens += granted;
    q.leased += granted;
    q.lastGrant = granted;
    // Two leases can be in flight after a timeout: the later one asked knows more. The count can fall, as
    // others give quota back.
    if (seq > q.learnedFrom) {
      q.learnedFrom = seq;
      q.othersUsed = used - q.leased;
    }
    if (granted > 0) {
      q.recheckMs = 0;
      q.recheckAtMs = 0;
      if (!this.holding.has(q)) this.holding.set(q, -1);
    } else {
      q.recheckMs = Math.min(RECHECK_MAX_MS, 2 * q.recheckMs || RECHECK_MS);
      q.recheckAtMs = this.now() + q.recheckMs;
    }
  }

  /**
   * The timer's turn: gives back the tokens of every window that admitted nothing since the last turn, in one
   * statement. Not during an outage, nor for a window that ended (its row no longer matters), nor for a key
   * with a lease in flight (its grant lands first; the next turn gives it back if the key stays idle).
   */
  private giveBackIdle(): void {
    if (this.offline) return;
    const now = this.now();
    const idle: Quota[] = [];
    for (const [q, seen] of this.holding) {
      if (q.tokens === 0 || now >= q.windowEndMs) this.holding.delete(q);
      else if (q.admitted !== seen) this.holding.set(q, q.admitted);
      else if (q.inFlight === undefined) idle.push(q);
    }
    if (idle.length > 0) void this.giveBack(idle);
  }

  /**
   * The tokens stop being this process's at once, so no request admits them while they go back. If the statement
   * fails they are lost to this window (PostgreSQL still counts them): fewer admitted, never more than the max.
   */
  private giveBack(qs: Quota[]): Promise<void> {
    const back = qs.map((q) => {
      const tokens = q.tokens;
      q.tokens = 0;
      q.leased -= tokens;
      this.holding.delete(q);
      return { key: q.key, tokens };
    });
    const fields = { limit: this.name, keys: back.length, tokens: back.reduce((n, b) => n + b.tokens, 0) };
    const why = "rate-limit quota: unspent quota could not be given back; it stays leased until its window ends";
    const asked = this.store.giveBack(back).then(
      () => undefined,
      (err: unknown) => log.debug(why, { ...fields, error: (err as Error).message }),
    );
    return this.inFlight(qs, asked, () => log.debug(why, { ...fields, error: `no answer within ${LEASE_WAIT_MS} ms` }));
  }

  /**
   * Marks the statement in flight for its keys; resolves (never rejects) once it is answered, or failed, or
   * LEASE_WAIT_MS passed (then `late` runs): the requests waiting on it go on.
   */
  private inFlight(qs: Quota[], asked: Promise<void>, late: () => void): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        late();
        resolve();
      }, LEASE_WAIT_MS);
    });
    const done = Promise.race([asked, timeout]).finally(() => {
      clearTimeout(timer);
      for (const q of qs) if (q.inFlight === done) q.inFlight = undefined;
    });
    for (const q of qs) q.inFlight = done;
    return done;
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
    for (const [k, q] of this.quotas) if (now >= q.windowEndMs && q.inFlight === undefined) this.quotas.delete(k);
    for (const k of this.quotas.keys()) {
      if (this.quotas.size <= KEYS_MAX * 0.9) break;
      this.quotas.delete(k);
    }
  }
}
