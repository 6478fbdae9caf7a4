import { isServiceError, RecommendationServiceError } from "./errors.js";
import type { PersistedQueue } from "./persistedQueue.js";
import { verdict, type Backoff } from "./retry.js";
import type { TrackedEvent } from "./types.js";

export interface QueueOptions {
  batchSize: number;
  maxBatchBytes: number;
  unloadBatchBytes: number;
  flushIntervalMs: number;
  maxQueueSize: number;
  backoff: Backoff;
}

export interface QueueHooks {
  /** Sends one batch as a JSON array body; resolves when the service has accepted it. */
  send(body: string, keepalive: boolean): Promise<void>;
  /** Events the service refused for good (400, 401, 403, ...) or that were dropped to stay under the cap. */
  onError(err: RecommendationServiceError, events: TrackedEvent[]): void;
  random(): number;
}

interface Queued {
  event: TrackedEvent;
  json: string;
  bytes: number;
}

const encoder = new TextEncoder();
const queued = (event: TrackedEvent): Queued => {
  const json = JSON.stringify(event);
  return { event, json, bytes: encoder.encode(json).length };
};

/**
 * Tracked events on their way to POST /v1/events/ingest: sent in batches of `batchSize` events, `maxBatchBytes`
 * bytes or what `flushIntervalMs` gathered, whichever comes first, one request at a time. An event leaves the
 * queue when the service has accepted it, so a lost answer resends it (its event_id makes that harmless).
 */
export class EventQueue {
  private items: Queued[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private adoptTimer: ReturnType<typeof setTimeout> | undefined;
  private draining: Promise<void> | undefined;
  private saving = false;
  private attempt = 0;
  private byteBudget: number;
  private failure: RecommendationServiceError | undefined;
  /** Events out in keepalive requests: browsers allow 64 KiB of those bodies in flight per page, so they count against it. */
  private readonly keptAlive = new Set<Queued>();
  /** Events dropped to keep the queue under `maxQueueSize` (or the storage quota) since the client started. */
  dropped = 0;

  constructor(
    private readonly opts: QueueOptions,
    private readonly hooks: QueueHooks,
    private readonly persisted: PersistedQueue | undefined,
  ) {
    this.byteBudget = opts.maxBatchBytes;
    this.adopt(true);
    if (this.items.length > 0) this.schedule();
  }

  get size(): number {
    return this.items.length;
  }

  push(event: TrackedEvent): void {
    this.items.push(queued(event));
    if (this.items.length > this.opts.maxQueueSize) this.drop(this.items.length - this.opts.maxQueueSize);
    this.persistSoon();
    if (this.items.length >= this.opts.batchSize) void this.drain();
    else this.schedule();
  }

  /** Sends everything queued; resolves when the queue is empty, rejects with the first error that cannot pass by retrying. */
  async flush(): Promise<void> {
    this.failure = undefined;
    while (this.items.length > 0) await this.drain();
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure;
  }

  /**
   * The page is going away: the queue is saved, and what fits in one `unloadBatchBytes` request goes out with
   * keepalive, which the browser delivers after the page is gone. What does not fit waits in storage.
   */
  flushOnUnload(): void {
    this.persistNow();
    const inFlight = bytesOf([...this.keptAlive]);
    const batch = this.take(this.opts.unloadBatchBytes - inFlight, (q) => !this.keptAlive.has(q));
    if (batch.length === 0 || bytesOf(batch) + inFlight > this.opts.unloadBatchBytes) return;
    for (const q of batch) this.keptAlive.add(q);
    const release = () => batch.forEach((q) => this.keptAlive.delete(q));
    this.hooks.send(body(batch), true).then(
      () => {
        release();
        this.remove(batch);
      },
      release, // still queued and saved: the next drain, or the next page, sends it again
    );
  }

  /** The page is left (pagehide): its key is marked closed, for the next page or another tab to adopt at once. */
  leave(send: boolean): void {
    this.persisted?.close();
    if (send) this.flushOnUnload();
    else this.persistNow();
  }

  /** The page is shown again from the back-forward cache: its key is live again. */
  back(): void {
    this.persisted?.reopen();
    this.persistNow();
  }

  /** Another tab was closed: its key is adopted after `delayMs` (by then the next page of a navigation has usually taken it). */
  adoptSoon(delayMs: number): void {
    if (this.adoptTimer !== undefined) return;
    this.adoptTimer = setTimeout(() => {
      this.adoptTimer = undefined;
      this.adopt(true);
      if (this.items.length > 0) this.schedule();
    }, delayMs);
  }

  /** No more sending from this client: what is left is saved under a key marked closed, for another to adopt. */
  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.adoptTimer);
    this.timer = this.adoptTimer = undefined;
    this.persisted?.close();
    this.persistNow();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.draining) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.opts.flushIntervalMs);
  }

  private drain(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.draining ??= this.sendAll().finally(() => {
      this.draining = undefined;
      if (this.items.length > 0) this.schedule();
    });
    return this.draining;
  }

  private async sendAll(): Promise<void> {
    while (this.items.length > 0) {
      this.tend();
      const batch = this.take(this.byteBudget);
      try {
        await this.hooks.send(body(batch), false);
        this.attempt = 0;
        this.remove(batch);
      } catch (err) {
        if (!(await this.recover(err, batch))) return;
      }
    }
  }

  /** Before each send: adopts what gone tabs left, and rewrites this tab's key now and then, so other tabs see it alive. */
  private tend(): void {
    this.adopt(false);
    if (this.persisted?.needsRefresh()) this.persistNow();
  }

  /**
   * Takes in the events of gone tabs' keys (oldest first, each event_id once), saves them under this tab's key
   * and only then removes those keys: a failure in between leaves the events stored twice, never nowhere.
   */
  private adopt(force: boolean): void {
    if (!this.persisted) return;
    const orphans = this.persisted.orphans(force);
    if (orphans.keys.length === 0) return;
    const known = new Set(this.items.map((q) => q.event.event_id));
    const adopted: Queued[] = [];
    for (const e of orphans.events) {
      if (known.has(e.event_id)) continue;
      known.add(e.event_id);
      adopted.push(queued(e));
    }
    this.items.unshift(...adopted);
    if (this.items.length > this.opts.maxQueueSize) this.drop(this.items.length - this.opts.maxQueueSize);
    this.persistNow();
    this.persisted.release(orphans.keys);
  }

  /** After a failed batch: answers whether to go on sending (after waiting, shrinking or dropping as the failure asks). */
  private async recover(err: unknown, batch: Queued[]): Promise<boolean> {
    if (!isServiceError(err)) {
      // A fault on this side (a fetch that throws what no fetch should): sending again cannot mend it.
      this.reject(new RecommendationServiceError("internal_error", `sending failed: ${String(err)}`, 0), batch);
      return true;
    }
    const v = verdict(err, this.attempt, this.opts.backoff, this.hooks.random);
    if (v.kind === "retry") {
      this.attempt++;
      await sleep(v.delayMs);
      return true;
    }
    if (v.kind === "split" && batch.length > 1) {
      // The service's body limit is lower than ours: from now on a request carries what half of this one did.
      this.byteBudget = bytesOf(batch.slice(0, Math.ceil(batch.length / 2)));
      return true;
    }
    this.reject(err, batch);
    return true;
  }

  /**
   * A refused batch: a 400 names the invalid events by index, and only those are dropped; otherwise the whole
   * batch goes. An event refused for its timestamp alone (a visitor's clock days ahead) is kept without it,
   * to be stored at its time of receipt rather than lost.
   */
  private reject(err: RecommendationServiceError, batch: Queued[]): void {
    const named = err.code === "validation_error" ? invalidFields(err.message, batch.length) : new Map<number, Set<string>>();
    if (named.size === 0) return this.refuse(err, batch);
    const refused: Queued[] = [];
    for (const [i, fields] of named) {
      if (fields.size === 1 && fields.has("timestamp") && batch[i].event.timestamp !== undefined) this.retime(batch[i]);
      else refused.push(batch[i]);
    }
    if (refused.length > 0) this.refuse(err, refused);
  }

  private refuse(err: RecommendationServiceError, events: Queued[]): void {
    this.remove(events);
    this.failure ??= err;
    this.hooks.onError(
      err,
      events.map((q) => q.event),
    );
  }

  /** The event in place, without its timestamp. */
  private retime(q: Queued): void {
    const { timestamp: _refused, ...event } = q.event;
    const i = this.items.indexOf(q);
    if (i >= 0) this.items[i] = queued(event);
    this.persistSoon();
  }

  /** From the head: as many events (of those `eligible`) as fit `batchSize` and `maxBytes` (always at least one). */
  private take(maxBytes: number, eligible: (q: Queued) => boolean = () => true): Queued[] {
    const batch: Queued[] = [];
    let bytes = 2;
    for (const q of this.items) {
      if (!eligible(q)) continue;
      if (batch.length === this.opts.batchSize) break;
      if (batch.length > 0 && bytes + q.bytes + 1 > maxBytes) break;
      batch.push(q);
      bytes += q.bytes + 1;
    }
    return batch;
  }

  private remove(batch: readonly Queued[]): void {
    const gone = new Set(batch);
    this.items = this.items.filter((q) => !gone.has(q));
    this.persistSoon();
  }

  private drop(n: number): void {
    const oldest = this.items.splice(0, n);
    this.dropped += n;
    const err = new RecommendationServiceError("unavailable", `queue full (${this.opts.maxQueueSize} events): dropped the ${n} oldest`, 0);
    this.hooks.onError(
      err,
      oldest.map((q) => q.event),
    );
  }

  /** One write per burst of tracking, not one per event. */
  private persistSoon(): void {
    if (!this.persisted || this.saving) return;
    this.saving = true;
    queueMicrotask(() => this.persistNow());
  }

  private persistNow(): void {
    this.saving = false;
    if (!this.persisted) return;
    const overflow = this.persisted.save(this.items.map((q) => q.event));
    if (overflow > 0) this.dropped += overflow;
  }
}

function body(batch: readonly Queued[]): string {
  return "[" + batch.map((q) => q.json).join(",") + "]";
}

/** As take() counts them: the brackets, and each event with its comma. */
function bytesOf(batch: readonly Queued[]): number {
  return batch.reduce((n, q) => n + q.bytes + 1, 2);
}

/** `events[12].user_id: …; events[12].timestamp: …` → 12 → {user_id, timestamp}, for every index the message names. */
function invalidFields(message: string, n: number): Map<number, Set<string>> {
  const found = new Map<number, Set<string>>();
  for (const m of message.matchAll(/events\[(\d+)\](?:\.([a-z_]+))?/g)) {
    const i = Number(m[1]);
    if (i >= n) continue;
    const fields = found.get(i) ?? new Set<string>();
    fields.add(m[2] ?? "");
    found.set(i, fields);
  }
  return found;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
