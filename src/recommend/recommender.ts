import { Worker } from "node:worker_threads";
import { AppError } from "../errors.js";
import type { BatchPayload } from "../ingest/rows.js";
import { log } from "../log.js";
import type { RecommenderData } from "../../workers/recommender/index.js";
import type { AlsParams } from "../../workers/training/als.js";
import { readAnswers } from "./answerBatch.js";
import { PendingRequests } from "./pendingRequests.js";
import {
  askToWire, packMessage, unpackMessage, type AskWire, type FromShard, type OrgStats, type ToShard,
} from "./protocol.js";
import { sharedAnswerKey, type RankRequest, type RankResult } from "./schema.js";
import { SharedAnswers } from "./sharedAnswers.js";

const SHARD_FILE = new URL("../../workers/recommender/index.js", import.meta.url);

export interface RecommenderOptions {
  databaseUrl: string;
  shards: number;
  timeoutMs: number;
  als: AlsParams;
  retrainIntervalMs: number;
}

/** Receives a shard's answer, or the AppError to answer the request with. */
export type Done<T> = (err: AppError | undefined, value: T | undefined) => void;

/** How often unanswered requests are checked against their deadline (one timer, not one per request). */
const SWEEP_MS = 100;

interface ShardThread {
  worker: Worker;
  ready: boolean;
}

/**
 * The front thread's side of the recommender threads. Each organisation lives on one shard (its seq modulo the
 * number of shards): a request needs one message to one thread, and all of an organisation's state (histories,
 * co-occurrences, model) stays together without locks. A committed ingest batch goes, as the bytes the writer got,
 * to each shard that owns one of its organisations.
 */
export class Recommender {
  private readonly threads: ShardThread[] = [];
  private readonly pending = new PendingRequests<Done<unknown>>();
  /** Rank requests of the current event-loop turn, per shard: they leave together, one message per shard. */
  private outbox: AskWire[][] = [];
  private outboxScheduled = false;
  private closing = false;
  private readonly sweeper: NodeJS.Timeout;
  private readonly shared = new SharedAnswers();

  private constructor(private readonly opts: RecommenderOptions) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Starts every shard and resolves once each has built its index from PostgreSQL. */
  static async start(opts: RecommenderOptions): Promise<Recommender> {
    const r = new Recommender(opts);
    await Promise.all(Array.from({ length: opts.shards }, (_, i) => r.spawn(i)));
    return r;
  }

  /** Requests sent to the shards and not answered yet. */
  get waiting(): number {
    return this.pending.size;
  }

  get ready(): boolean {
    return this.threads.every((t) => t.ready);
  }

  /** The answer a request shares with identical recent ones, when there is one (no thread hop then). */
  sharedAnswer(req: RankRequest): RankResult | undefined {
    const key = sharedAnswerKey(req);
    return key === undefined ? undefined : this.shared.get(key);
  }

  /** Ranks on the organisation's shard; `done` is called once. A callback, not a promise: this runs per request. */
  rank(req: RankRequest, done: Done<RankResult>): void {
    const key = sharedAnswerKey(req);
    const deliver: Done<RankResult> = key === undefined ? done : (err, result) => {
      if (result) this.shared.set(key, result);
      done(err, result);
    };
    this.ask(req.org, deliver as Done<unknown>, (shard, id) => {
      (this.outbox[shard] ??= []).push(askToWire({ id, req }));
      if (!this.outboxScheduled) {
        this.outboxScheduled = true;
        setImmediate(() => this.sendOutbox());
      }
    });
  }

  stats(org: number): Promise<OrgStats | undefined> {
    return new Promise((resolve, reject) => {
      this.ask(org, (err, stats) => (err ? reject(err) : resolve(stats as OrgStats | undefined)), (shard, id) => this.post(shard, { t: "stats", id, org }));
    });
  }

  /** Sends a committed batch (its packed bytes) to the shards that own its organisations. */
  publish(batch: BatchPayload, packed: Uint8Array, notStored: readonly number[] | undefined): void {
    const n = this.threads.length;
    let owners = 0;
    for (const r of batch.items) owners |= 1 << r[0] % n;
    for (const r of batch.users) owners |= 1 << r[0] % n;
    for (const r of batch.events) owners |= 1 << r[0] % n;
    for (let shard = 0; shard < n; shard++) {
      if (owners & (1 << shard)) this.post(shard, { t: "batch", payload: packed, notStored: notStored ?? null });
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private ask(org: number, done: Done<unknown>, send: (shard: number, id: number) => void): void {
    const shard = org % this.threads.length;
    if (!this.threads[shard]!.ready) {
      done(new AppError("unavailable", "the recommender index is loading; retry shortly"), undefined);
      return;
    }
    send(shard, this.pending.add(done, performance.now() + this.opts.timeoutMs));
  }

  private sendOutbox(): void {
    this.outboxScheduled = false;
    const outbox = this.outbox;
    this.outbox = [];
    outbox.forEach((asks, shard) => {
      if (asks.length > 0 && this.threads[shard]!.ready) this.post(shard, { t: "rank", asks });
    });
  }

  /** Fails the requests whose deadline has passed. */
  private sweep(): void {
    this.pending.expire(performance.now(), (done) => done(new AppError("unavailable", "the recommender did not answer in time; retry shortly"), undefined));
  }

  private post(shard: number, m: ToShard): void {
    const packed = packMessage(m);
    this.threads[shard]!.worker.postMessage(packed, [packed.buffer as ArrayBuffer]);
  }

  private spawn(shard: number): Promise<void> {
    const data: RecommenderData = {
      databaseUrl: this.opts.databaseUrl, shard, shards: this.opts.shards, als: this.opts.als, retrainIntervalMs: this.opts.retrainIntervalMs,
    };
    const worker = new Worker(SHARD_FILE, { workerData: data });
    const thread: ShardThread = { worker, ready: false };
    this.threads[shard] = thread;
    return new Promise((resolve, reject) => {
      worker.on("message", (raw: Uint8Array | ArrayBuffer) => {
        if (raw instanceof ArrayBuffer) {
          readAnswers(raw, this.settleAnswer);
          return;
        }
        const m = unpackMessage<FromShard>(raw);
        if (m.t === "ready") {
          thread.ready = true;
          log.info("recommender index built", { shard, orgs: m.orgs, events: m.events, ms: m.ms });
          resolve();
        } else {
          this.settle(m);
        }
      });
      worker.on("error", (err) => log.error("recommender thread failed", { shard, error: err.stack }));
      worker.on("exit", (code) => {
        thread.ready = false;
        if (this.closing) return;
        if (!this.threads.includes(thread)) return;
        log.error("recommender thread exited; rebuilding its shard", { shard, code });
        reject(new Error(`recommender shard ${shard} exited with code ${code} while loading`));
        this.failPending();
        setTimeout(() => this.spawn(shard).catch((err: Error) => log.error("recommender shard restart failed", { shard, error: err.message })), 1000).unref();
      });
    });
  }

  private settle(m: FromShard): void {
    if (m.t === "stats") this.pending.take(m.id)?.(undefined, m.stats);
  }

  private readonly settleAnswer = (id: number, result: RankResult | undefined): void => {
    const done = this.pending.take(id);
    if (!done) return;
    if (result) done(undefined, result);
    else done(new AppError("internal_error", "the recommender failed on this request"), undefined);
  };

  private failPending(): void {
    this.pending.drain((done) => done(new AppError("unavailable", "the recommender restarted; retry shortly"), undefined));
  }
}
