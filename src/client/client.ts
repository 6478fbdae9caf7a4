import { USER_STRATEGIES, type Strategy } from "../wire/strategies.js";
import { RecommendationServiceError } from "./errors.js";
import { familyOf } from "./families.js";
import { Identity } from "./identity.js";
import { platformRandom, uuid, type RandomSource } from "./ids.js";
import { resolveOptions, type ClientOptions, type ResolvedOptions } from "./options.js";
import { watchLifecycle } from "./lifecycle.js";
import { isClosedQueue, PersistedQueue } from "./persistedQueue.js";
import { EventQueue } from "./queue.js";
import { requestBodies } from "./records.js";
import { verdict } from "./retry.js";
import { ServedItems } from "./served.js";
import { MemoryStore, browserStorage } from "./storage.js";
import { post, type TransportOptions } from "./transport.js";
import type { Item, RecommendRequest, Recommendations, TrackedEvent, TrackInput, User } from "./types.js";

/**
 * The service from a page or a Node process: `track()` queues events and sends them in batches that survive
 * rate limits, outages, reloads and closing tabs; `recommend()` ranks; `upsertItems()`/`upsertUsers()` load the
 * catalog (secret key, server side).
 */
export class RecommendationClient {
  private readonly o: ResolvedOptions;
  private readonly t: TransportOptions;
  private readonly random: RandomSource;
  private readonly identity: Identity;
  private readonly served: ServedItems;
  private readonly queue: EventQueue;
  private readonly detach: () => void;

  constructor(options: ClientOptions) {
    this.o = resolveOptions(options);
    this.t = { baseUrl: this.o.baseUrl, fetch: this.o.fetch, requestTimeoutMs: this.o.requestTimeoutMs };
    this.random = options.crypto ?? platformRandom();
    const store = this.o.storage ?? browserStorage() ?? new MemoryStore();
    const prefix = this.o.storageKey;
    this.identity = new Identity(store, prefix, this.random, this.o.userId, this.o.userHash);
    this.served = new ServedItems(store, `${prefix}:served`, this.o.attributionWindowMs);
    this.queue = new EventQueue(
      this.o,
      { send: (body, keepalive) => this.postEvents(body, keepalive), onError: this.o.onError, random: Math.random },
      new PersistedQueue(store, prefix, uuid(this.random)),
    );
    const flushOnHide = this.o.flushOnPageHide;
    this.detach = watchLifecycle({
      hidden: () => {
        if (flushOnHide) this.queue.flushOnUnload();
      },
      left: () => this.queue.leave(flushOnHide),
      back: () => this.queue.back(),
      stored: (key, value) => {
        // Another tab of the site was closed: this one sends what it left, after a random moment, so rarely two tabs do.
        if (key.startsWith(`${prefix}:queue:`) && isClosedQueue(value)) this.queue.adoptSoon(1_000 + Math.random() * 2_000);
      },
    });
  }

  /** The id events are sent under now: the identified user, or the anonymous visitor. */
  get userId(): string {
    return this.identity.userId;
  }

  /** Events waiting to be sent, and how many were dropped to stay under `maxQueueSize`. */
  get pending(): { queued: number; dropped: number } {
    return { queued: this.queue.size, dropped: this.queue.dropped };
  }

  /** Queues an event; answers it as it will be sent (with its event_id, user, family, time and recommendation). */
  track(input: TrackInput): TrackedEvent {
    this.key("publishable"); // a client without the key says so here, not later in a timer
    const event = this.complete(input);
    this.queue.push(event);
    return event;
  }

  /**
   * The visitor signed in as `userId`: an `identify` event makes the anonymous history theirs (CONTRACT 4), and
   * later events carry `userId`. Switching from one signed-in user to another sends no identify. `userHash`: the
   * user's `user_hash` from your server, when the organisation verifies identities (see `ClientOptions.userHash`).
   */
  identify(userId: string, userHash?: string): void {
    const previous = this.identity.identify(userId, userHash);
    if (previous === undefined) return;
    const hash = userHash === undefined ? {} : { user_hash: userHash };
    this.track({ event_name: "identify", event_family: "system", user_id: userId, previous_user_id: previous, ...hash });
  }

  /** Sign-out: later events belong to a new anonymous visitor. */
  reset(): void {
    this.identity.reset();
  }

  /** Ranked items; each carries the answer's recommendation_id, and later events on them carry it too. */
  async recommend(request: RecommendRequest = {}): Promise<Recommendations> {
    const strategy = (request.strategy ?? "personalized") as Strategy;
    const withUser = USER_STRATEGIES.has(strategy) && request.user_id === undefined ? { ...request, user_id: this.userId } : request;
    const hash = this.identity.userHash;
    const proven = hash !== undefined && withUser.user_id === this.identity.userId && withUser.user_hash === undefined;
    const body = proven ? { ...withUser, user_hash: hash } : withUser;
    const data = (await this.withRetries(this.o.recommendRetries + 1, false, () =>
      post(this.t, "/v1/recommend", this.key("publishable"), JSON.stringify(body)),
    )) as Recommendations;
    for (const r of data.results) r.recommendation_id = data.recommendation_id;
    this.served.remember(data.recommendation_id, data.recommended_items);
    return data;
  }

  /** Sends events now, in as many requests as they need, outside the queue; answers how many were accepted. */
  ingestEvents(events: readonly TrackInput[]): Promise<number> {
    return this.sendRecords(
      "/v1/events/ingest",
      "publishable",
      events.map((e) => this.complete(e)),
    );
  }

  /** Creates or updates items (secret key), in requests of up to 10,000; answers how many were accepted. */
  upsertItems(items: readonly Item[]): Promise<number> {
    return this.sendRecords("/v1/items/upsert", "secret", items);
  }

  /** Creates or updates users (secret key), in requests of up to 10,000; answers how many were accepted. */
  upsertUsers(users: readonly User[]): Promise<number> {
    return this.sendRecords("/v1/users/upsert", "secret", users);
  }

  /** Sends every queued event; rejects with the first error retrying cannot mend (the events it concerns are dropped). */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** Sends what is queued and stops: call before a Node process exits. */
  async close(): Promise<void> {
    this.detach();
    try {
      await this.queue.flush();
    } finally {
      this.queue.stop();
    }
  }

  private complete(input: TrackInput): TrackedEvent {
    const recommendationId = input.recommendation_id ?? (input.item_id ? this.served.recommendationFor(input.item_id) : undefined);
    return {
      ...input,
      user_id: input.user_id ?? this.userId,
      event_family: input.event_family ?? familyOf(input.event_name),
      event_id: input.event_id ?? uuid(this.random),
      timestamp: input.timestamp ?? new Date().toISOString(),
      ...(recommendationId === undefined ? {} : { recommendation_id: recommendationId }),
    };
  }

  private async postEvents(body: string, keepalive: boolean): Promise<void> {
    await post(this.t, "/v1/events/ingest", this.key("publishable"), body, keepalive);
  }

  private async sendRecords<T>(path: string, key: "publishable" | "secret", records: readonly T[]): Promise<number> {
    let accepted = 0;
    for (const { body, records: part } of requestBodies(records)) accepted += await this.sendPart(path, key, body, part);
    return accepted;
  }

  /** One request's records; a 413 sends them again as two halves. */
  private async sendPart<T>(path: string, key: "publishable" | "secret", body: string, records: T[]): Promise<number> {
    try {
      const data = (await this.withRetries(this.o.maxAttempts, true, () => post(this.t, path, this.key(key), body))) as { accepted: number };
      return data.accepted;
    } catch (err) {
      if (!(err instanceof RecommendationServiceError) || err.status !== 413 || records.length < 2) throw err;
      const half = Math.ceil(records.length / 2);
      let accepted = 0;
      for (const part of [records.slice(0, half), records.slice(half)]) accepted += await this.sendPart(path, key, JSON.stringify(part), part);
      return accepted;
    }
  }

  /** Tries `call` up to `tries` times, waiting as `verdict` says; a 429 is waited out only when `waitOn429`. */
  private async withRetries(tries: number, waitOn429: boolean, call: () => Promise<unknown>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof RecommendationServiceError) || attempt + 1 >= tries || (err.status === 429 && !waitOn429)) throw err;
        const v = verdict(err, attempt, this.o.backoff);
        if (v.kind !== "retry") throw err;
        await new Promise((resolve) => setTimeout(resolve, v.delayMs));
      }
    }
  }

  private key(kind: "publishable" | "secret"): string {
    const key = kind === "publishable" ? this.o.publishableKey : this.o.secretKey;
    if (key === undefined) throw new TypeError(`this call needs the ${kind} key: pass ${kind}Key to the client`);
    return key;
  }
}
