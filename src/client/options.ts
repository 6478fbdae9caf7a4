import type { RecommendationServiceError } from "./errors.js";
import type { RandomSource } from "./ids.js";
import { DEFAULT_BACKOFF, type Backoff } from "./retry.js";
import type { KeyValueStore } from "./storage.js";
import type { TrackedEvent } from "./types.js";

/** Every option but `baseUrl` has a default; the keys are needed only by the calls that use them. */
export interface ClientOptions {
  /** Where the service answers, e.g. `https://recs.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** `svc_pk_…`: tracking, event ingestion and recommendations. Safe in a page. */
  publishableKey?: string;
  /** `svc_sk_…`: item and user upserts. Server side only: never put it in a page. */
  secretKey?: string;
  /** The signed-in user, if known at start; otherwise events carry an anonymous id until `identify()`. */
  userId?: string;
  /**
   * `userId`'s `user_hash`, for an organisation that verifies identities: hex HMAC-SHA256 of the user id keyed
   * with the organisation's identity secret, computed by your server and written into the page (never the secret).
   * Sent with `identify` and with recommend calls for the signed-in user.
   */
  userHash?: string;
  /** Events per request (default 100; the service takes up to 10,000). */
  batchSize?: number;
  /** Bytes per request (default 1 MiB; the service's limit is 5 MiB). */
  maxBatchBytes?: number;
  /** Bytes of the keepalive request sent while a page closes (default 64,000: browsers refuse more). */
  unloadBatchBytes?: number;
  /** How long a tracked event may wait for its batch to fill (default 3,000 ms). */
  flushIntervalMs?: number;
  /** Events held at most, in memory and in storage; beyond, the oldest are dropped and counted (default 2,000). */
  maxQueueSize?: number;
  /** A call with no answer after this long counts as failed and is retried (default 10,000 ms). */
  requestTimeoutMs?: number;
  /** Backoff after 5xx answers and network errors: full jitter, doubling from `baseMs` up to `maxMs` (default 500 ms, 30 s). */
  backoff?: Partial<Backoff>;
  /** Retries of a recommend call after a 5xx or a network error (default 1; a 429 is never retried: the caller decides). */
  recommendRetries?: number;
  /** Tries of an upsert or ingest call before its error is thrown (default 8). */
  maxAttempts?: number;
  /** How long a served recommendation is credited with later events on its items (default 30 minutes; 0: never). */
  attributionWindowMs?: number;
  /** Where the queue, the anonymous id and recent recommendations are kept (default: localStorage in a browser, memory elsewhere). */
  storage?: KeyValueStore;
  /**
   * Prefix of the storage keys (default `recsvc`). Each client instance (each tab) keeps its queue under its own
   * `<prefix>:queue:<random id>` and adopts the ones that closed or silent tabs left under the same prefix: clients
   * sending to different services or organisations need different prefixes.
   */
  storageKey?: string;
  /** Send what is queued when the page is hidden or closed (default true; browsers only). */
  flushOnPageHide?: boolean;
  /** Told of events the service refused for good (400, 401, 403) or that were dropped (default: console.warn). */
  onError?: (err: RecommendationServiceError, events: TrackedEvent[]) => void;
  /** Defaults to the platform's `fetch`. */
  fetch?: typeof fetch;
  /** Defaults to `globalThis.crypto`. */
  crypto?: RandomSource;
}

export type ResolvedOptions = Required<
  Omit<ClientOptions, "publishableKey" | "secretKey" | "userId" | "userHash" | "storage" | "backoff" | "crypto">
> &
  Pick<ClientOptions, "publishableKey" | "secretKey" | "userId" | "userHash" | "storage"> & { backoff: Backoff };

export function resolveOptions(o: ClientOptions): ResolvedOptions {
  if (!o.baseUrl) throw new TypeError("baseUrl is required, e.g. https://recs.example.com");
  return {
    batchSize: 100,
    maxBatchBytes: 1024 * 1024,
    unloadBatchBytes: 64_000,
    flushIntervalMs: 3_000,
    maxQueueSize: 2_000,
    requestTimeoutMs: 10_000,
    recommendRetries: 1,
    maxAttempts: 8,
    attributionWindowMs: 30 * 60_000,
    storageKey: "recsvc",
    flushOnPageHide: true,
    onError: (err, events) => console.warn(`recommendation service: ${events.length} events not stored: ${err.code}: ${err.message}`),
    fetch: (...args) => globalThis.fetch(...args),
    ...withoutUndefined(o),
    baseUrl: o.baseUrl.replace(/\/+$/, ""),
    backoff: { ...DEFAULT_BACKOFF, ...o.backoff },
  };
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
