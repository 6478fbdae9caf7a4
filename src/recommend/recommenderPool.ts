import { Worker } from "node:worker_threads";
import { appError, type AppError } from "../errors.js";
import { log, logLevel } from "../wire/log.js";
import type { RecommenderThreadData } from "../wire/threadData.js";
import type { AlsParams } from "../wire/als.js";
import { DEFAULT_USER_LIMITS, type UserLimits } from "../wire/userLimits.js";
import { DEFAULT_TRAINING_ENTRIES_MAX } from "../wire/trainingBudget.js";
import { readAnswers } from "../wire/answerBatch.js";
import { PendingRequests } from "./pendingRequests.js";
import {
  askToWire,
  batchToWire,
  packMessage,
  unpackMessage,
  type AskWire,
  type FromShard,
  type OrgStats,
  type ShardSizes,
  type ToShard,
} from "../wire/shardMessages.js";
import { sharedAnswerKey, type RankRequest, type RankResult } from "../wire/rank.js";
import { SharedAnswers } from "./sharedAnswers.js";
import type { RuleSet } from "../wire/rules.js";
import type { Explanation } from "../wire/explanation.js";

const SHARD_FILE = new URL("../../workers/recommender/recommenderThread.js", import.meta.url);

export interface RecommenderPoolOptions {
  databaseUrl: string;
  shards: number;
  timeoutMs: number;
  /** RECOMMEND_ORG_QUEUE_MAX: an organisation's unanswered asks on its shard beyond which its next ones get 503 at once. */
  orgQueueMax: number;
  als: AlsParams;
  retrainIntervalMs: number;
  /** Each organisation's limits inside the index (ORG_MAX_ATTRIBUTE_TOKENS, ORG_INDEX_MAX_BYTES); none when unset. */
  attributeCaps?: { maxTokens: number; maxBytes: number };
  /** What the index keeps per user (USER_HISTORY_MAX, USER_ITEMS_MAX); their defaults when unset. */
  userLimits?: UserLimits;
  /** TRAINING_ENTRIES_MAX; its default when unset. */
  trainingEntriesMax?: number;
  /** CLUSTER=1: this process's id, and how long a training lease lasts unrenewed (workers/recommender/sharedTraining.ts). */
  cluster?: { holder: string; leaseS: number };
  /** INDEX_SNAPSHOT_MIN_EVENTS (docs/operations.md, Snapshots). */
  snapshotMinEvents?: number;
  /** Every organisation's rule set a shard starts with (src/rules/ruleFeed.ts), sent to it as it is spawned or restarted. */
  ruleSets?: (shard: number, shards: number) => RuleSet[];
  /** Hears what the shards report (for the metrics). */
  observer?: ShardObserver;
}

/** What the shards report, by shard number. */
export interface ShardObserver {
  restarted(shard: number): void;
  skipped(shard: number, records: number): void;
  /** Asks the shard reached past their deadline and dropped without ranking them. */
  expired(shard: number, asks: number): void;
  trained(shard: number, ms: number, budgeted: boolean): void;
  sizes(shard: number, sizes: ShardSizes): void;
  snapshotsLoaded?(outcomes: Record<string, number>): void;
  snapshotWritten?(m: Extract<FromShard, { t: "snapshotWritten" }>): void;
}

/** Receives a shard's answer, or the AppError to answer the request with. */
export type Done<T> = (err: AppError | undefined, value: T | undefined) => void;

/** How often unanswered requests are checked against their deadline (one timer, not one per request). */
const SWEEP_MS = 100;

interface ShardThread {
  worker: Worker;
  /** Every organisation is loaded. */
  ready: boolean;
  /** While it loads: the organisations whose events it has not read yet (undefined until it has read items and users). */
  loading: Set<number> | undefined;
  /** This shard's unanswered requests: when it dies only they fail, not the other shards'. */
  pending: PendingRequests<Done<unknown>>;
  /** Unanswered rank requests by organisation (only those with some): RECOMMEND_ORG_QUEUE_MAX caps each. */
  queued: Map<number, number>;
  /** Rank requests of the current event-loop turn: they leave together, in one message. */
  outbox: AskWire[];
  /** `catchUp` messages not answered yet, by id: resolved when answered, or when the thread exits. */
  catchingUp: Map<number, () => void>;
}

/** Whether the thread holds the organisation in full: loaded, or loading and past it. */
function serves(t: ShardThread, org: number): boolean {
  return t.ready || (t.loading !== undefined && !t.loading.has(org));
}

/** A shard that died is started again at once; one that keeps dying soon after each start waits longer each time, up to this. */
const RESTART_DELAY_MAX_MS = 30_000;
/** A shard that has lived this long since its last start counts as healthy again: its next restart is immediate. */
const RESTART_FORGIVEN_MS = 60_000;

/**
 * The front thread's side of the recommender threads. Each organisation lives on one shard (its seq modulo the
 * number of shards): a request needs one message to one thread, and all of an organisation's state (histories,
 * co-occurrences, model) stays together without locks. A committed ingest batch goes, as the bytes the writer got,
 * to each shard that owns one of its organisations.
 */
export class RecommenderPool {
  private readonly threads: ShardThread[] = [];
  /** Per shard: when it was last started and how many times in a row it died soon after. */
  private readonly restarts: Array<{ startedAt: number; failures: number }> = [];
  private outboxScheduled = false;
  private catchUpIds = 0;
  private closing = false;
  private readonly sweeper: NodeJS.Timeout;
  private readonly shared = new SharedAnswers();

  private constructor(private readonly opts: RecommenderPoolOptions) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Starts every shard and resolves once each has built its index from PostgreSQL. */
  static async start(opts: RecommenderPoolOptions): Promise<RecommenderPool> {
    const r = new RecommenderPool(opts);
    await Promise.all(Array.from({ length: opts.shards }, (_, i) => r.spawn(i)));
    return r;
  }

  /** Requests sent to the shards and not answered yet. */
  get waiting(): number {
    return this.threads.reduce((n, t) => n + t.pending.size, 0);
  }

  get ready(): boolean {
    return this.threads.every((t) => t.ready);
  }

  /** The answer a request shares with identical recent ones, when there is one (no thread hop then). */
  sharedAnswer(req: RankRequest): RankResult | undefined {
    const key = sharedAnswerKey(req);
    return key === undefined ? undefined : this.shared.get(key);
  }

  /**
   * Ranks on the organisation's shard; `done` is called once. A callback, not a promise: this runs per request.
   * An organisation with RECOMMEND_ORG_QUEUE_MAX asks unanswered on its shard is answered 503 at once: its asks
   * beyond what the shard can serve in time would only wait for their deadline, and the shard serves each
   * organisation in turn (workers/recommender/fairScheduler.ts), so a longer queue buys it nothing.
   */
  rank(req: RankRequest, done: Done<RankResult>): void {
    const { org } = req;
    const thread = this.threadOf(org);
    const queued = thread.queued.get(org) ?? 0;
    if (queued >= this.opts.orgQueueMax) {
      done(appError("unavailable", "recommendQueue"), undefined);
      return;
    }
    thread.queued.set(org, queued + 1);
    const key = sharedAnswerKey(req);
    const deliver: Done<RankResult> = (err, result) => {
      const left = thread.queued.get(org)! - 1;
      if (left === 0) thread.queued.delete(org);
      else thread.queued.set(org, left);
      if (result && key !== undefined) this.shared.set(key, result);
      done(err, result);
    };
    this.ask(org, deliver as Done<unknown>, (thread, id, deadline) => {
      thread.outbox.push(askToWire({ id, req, deadline: performance.timeOrigin + deadline }));
      if (!this.outboxScheduled) {
        this.outboxScheduled = true;
        setImmediate(() => this.sendOutbox());
      }
    });
  }

  /** The preview: the page `rank` would answer, with its explanation, ranked on the shard at once (not logged, not shared). */
  explain(req: RankRequest): Promise<{ result: RankResult; explanation: Explanation }> {
    return new Promise((resolve, reject) => {
      this.ask(
        req.org,
        (err, answer) => (err ? reject(err) : resolve(answer as { result: RankResult; explanation: Explanation })),
        (thread, id, deadline) => post(thread, { t: "explain", id, ask: askToWire({ id, req, deadline: performance.timeOrigin + deadline }) }),
      );
    });
  }

  stats(org: number): Promise<OrgStats | undefined> {
    return new Promise((resolve, reject) => {
      this.ask(
        org,
        (err, stats) => (err ? reject(err) : resolve(stats as OrgStats | undefined)),
        (thread, id) => post(thread, { t: "stats", id, org }),
      );
    });
  }

  /**
   * Sends a committed batch (its packed bytes) to the shards that own its organisations (`orgs`: every one it
   * holds records of). The bytes are moved to the last owner, and copied for any other before that. `xid`: the
   * transaction that wrote it, given for another process's batch (the shard skips it if its load already read it).
   */
  publish(orgs: readonly number[], packed: Uint8Array<ArrayBuffer>, notStored: readonly number[] | undefined, xid?: string): void {
    const n = this.threads.length;
    let owners = 0;
    for (const org of orgs) owners |= 1 << (org % n);
    for (let shard = 0; shard < n; shard++) {
      if (!(owners & (1 << shard))) continue;
      owners &= ~(1 << shard);
      const bytes = owners === 0 ? packed : packed.slice();
      const wire = batchToWire(bytes, notStored ?? null, xid ?? null);
      this.threads[shard]!.worker.postMessage(wire, [wire[0].buffer as ArrayBuffer, bytes.buffer]);
    }
  }

  /** Erased users: the shard owning the organisation drops their state, after the batches sent before. */
  erase(org: number, userIds: string[]): void {
    post(this.threadOf(org), { t: "erase", org, userIds });
  }

  /**
   * Every shard snapshots its changed organisations at `position`: the caller holds the batches back so that
   * every one committed before it has been published, and none after (src/recommend/indexSnapshots.ts).
   */
  snapshot(position: string, takenAtS: number, fresh: number[], orgs: number[]): void {
    const n = this.threads.length;
    this.threads.forEach((t, shard) => {
      if (t.ready) post(t, { t: "snapshot", position, takenAtS, fresh, orgs: orgs.filter((org) => org % n === shard) });
    });
  }

  /**
   * The organisation's enabled rules changed: its shard replaces them (unless it holds a newer version), and the
   * answers shared across requests are dropped so that none made before the change is served after it.
   */
  rulesChanged(set: RuleSet): void {
    this.shared.clear();
    post(this.threadOf(set.org), { t: "rules", ...set });
  }

  /** CLUSTER=1: another process stored this organisation's model; its shard loads it. */
  modelStored(org: number, version: number): void {
    post(this.threadOf(org), { t: "model", org, version });
  }

  /** Resolves once every shard has applied the batches published so far, not merely queued them. */
  catchUp(): Promise<void> {
    return Promise.all(
      this.threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            const id = ++this.catchUpIds;
            t.catchingUp.set(id, resolve);
            post(t, { t: "catchUp", id });
          }),
      ),
    ).then(() => undefined);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private threadOf(org: number): ShardThread {
    return this.threads[org % this.threads.length]!;
  }

  /** `send` gets the ask's id and its deadline (this thread's performance.now()). */
  private ask(org: number, done: Done<unknown>, send: (thread: ShardThread, id: number, deadline: number) => void): void {
    const thread = this.threadOf(org);
    if (!serves(thread, org)) {
      done(appError("unavailable", "indexLoading"), undefined);
      return;
    }
    const deadline = performance.now() + this.opts.timeoutMs;
    send(thread, thread.pending.add(done, deadline), deadline);
  }

  /** A thread replaced meanwhile is not in `threads`: its asks are dropped with it (restart() failed them). */
  private sendOutbox(): void {
    this.outboxScheduled = false;
    for (const t of this.threads) {
      if (t.outbox.length === 0) continue;
      post(t, { t: "rank", asks: t.outbox });
      t.outbox = [];
    }
  }

  /** Fails the requests whose deadline has passed. */
  private sweep(): void {
    const now = performance.now();
    for (const t of this.threads) {
      t.pending.expire(now, (done) => done(appError("unavailable", "recommenderLate"), undefined));
    }
  }

  private spawn(shard: number, restart = false): Promise<void> {
    const data: RecommenderThreadData = {
      databaseUrl: this.opts.databaseUrl,
      shard,
      shards: this.opts.shards,
      als: this.opts.als,
      retrainIntervalMs: this.opts.retrainIntervalMs,
      orgMaxAttributeTokens: this.opts.attributeCaps?.maxTokens ?? Infinity,
      orgMaxAttributeBytes: this.opts.attributeCaps?.maxBytes ?? Infinity,
      userLimits: this.opts.userLimits ?? DEFAULT_USER_LIMITS,
      trainingEntriesMax: this.opts.trainingEntriesMax ?? DEFAULT_TRAINING_ENTRIES_MAX,
      restart,
      logLevel: logLevel(),
      cluster: this.opts.cluster ?? null,
      snapshotMinEvents: this.opts.snapshotMinEvents ?? 1,
    };
    const worker = new Worker(SHARD_FILE, { workerData: data });
    const thread: ShardThread = {
      worker,
      ready: false,
      loading: undefined,
      pending: new PendingRequests<Done<unknown>>(),
      queued: new Map(),
      outbox: [],
      catchingUp: new Map(),
    };
    this.threads[shard] = thread;
    for (const set of this.opts.ruleSets?.(shard, this.opts.shards) ?? []) post(thread, { t: "rules", ...set });
    const restarts = (this.restarts[shard] ??= { startedAt: 0, failures: 0 });
    restarts.startedAt = performance.now();
    const answer = (id: number, result: RankResult | undefined): void => {
      const done = thread.pending.take(id);
      if (!done) return;
      if (result) done(undefined, result);
      else done(appError("internal_error", "recommenderFailed"), undefined);
    };
    return new Promise((resolve, reject) => {
      worker.on("message", (raw: Uint8Array | ArrayBuffer) => {
        if (raw instanceof ArrayBuffer) {
          readAnswers(raw, answer);
          return;
        }
        const m = unpackMessage<FromShard>(raw);
        if (m.t === "ready") {
          thread.ready = true;
          thread.loading = undefined;
          log.info("recommender index built", { shard, orgs: m.orgs, events: m.events, ms: m.ms });
          if (m.skipped > 0) this.opts.observer?.skipped(shard, m.skipped);
          resolve();
        } else {
          this.receive(thread, shard, m);
        }
      });
      worker.on("error", (err) => log.error("recommender thread failed", { shard, error: err.stack }));
      worker.on("exit", (code) => {
        thread.ready = false;
        thread.loading = undefined;
        // What it had not applied is gone with it; its successor loads the tables afresh.
        for (const resolve of thread.catchingUp.values()) resolve();
        thread.catchingUp.clear();
        if (this.closing || this.threads[shard] !== thread) return;
        reject(new Error(`recommender shard ${shard} exited with code ${code} while loading`));
        this.restart(shard, thread, code);
      });
    });
  }

  /**
   * Rebuilds a shard that died, at once unless it keeps dying. Only its own organisations wait (503 while it
   * loads from PostgreSQL); requests on the other shards go on.
   */
  private restart(shard: number, dead: ShardThread, code: number): void {
    const restarts = this.restarts[shard]!;
    // The first death in a while restarts at once; each quick one after it waits 1, 2, 4 … s.
    restarts.failures = performance.now() - restarts.startedAt > RESTART_FORGIVEN_MS ? 1 : restarts.failures + 1;
    const delayMs = restarts.failures === 1 ? 0 : Math.min(RESTART_DELAY_MAX_MS, 500 * 2 ** (restarts.failures - 1));
    log.error("recommender thread exited; rebuilding its shard", { shard, code, inMs: delayMs });
    this.opts.observer?.restarted(shard);
    dead.pending.drain((done) => done(appError("unavailable", "recommenderRestarted"), undefined));
    const again = (): void => {
      this.spawn(shard, true).catch((err: Error) => log.error("recommender shard restart failed", { shard, error: err.message }));
    };
    if (delayMs === 0) again();
    else setTimeout(again, delayMs).unref();
  }

  private receive(thread: ShardThread, shard: number, m: FromShard): void {
    const observer = this.opts.observer;
    switch (m.t) {
      case "stats":
        thread.pending.take(m.id)?.(undefined, m.stats);
        return;
      case "explained": {
        const done = thread.pending.take(m.id);
        if (m.result && m.explanation) done?.(undefined, { result: m.result, explanation: m.explanation });
        else done?.(appError("internal_error", "recommenderFailed"), undefined);
        return;
      }
      case "caughtUp":
        thread.catchingUp.get(m.id)?.();
        thread.catchingUp.delete(m.id);
        return;
      case "loading":
        thread.loading = new Set(m.pending);
        return;
      case "loaded":
        for (const org of m.orgs) thread.loading?.delete(org);
        return;
      case "skipped":
        observer?.skipped(shard, m.records);
        return;
      case "expired":
        observer?.expired(shard, m.asks);
        return;
      case "trained":
        observer?.trained(shard, m.ms, m.budgeted);
        return;
      case "sizes":
        observer?.sizes(shard, m.sizes);
        return;
      case "snapshotsLoaded":
        observer?.snapshotsLoaded?.(m.outcomes);
        return;
      case "snapshotWritten":
        observer?.snapshotWritten?.(m);
        return;
    }
  }
}

function post(thread: ShardThread, m: ToShard): void {
  const packed = packMessage(m);
  thread.worker.postMessage(packed, [packed.buffer as ArrayBuffer]);
}
