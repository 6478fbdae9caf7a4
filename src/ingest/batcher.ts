import { type AppError, appError } from "../errors.js";
import { log } from "../wire/log.js";
import type { DatabaseHealth } from "../db/health.js";
import { metrics } from "../metrics/registry.js";
import { packBatch } from "../wire/batchPack.js";
import type { BatchPayload, EventRow, ItemRow, UserRow } from "../wire/batchRows.js";
import type { UsageRow, WriteResult } from "../wire/writeTasks.js";
import type { WriterPool } from "./writerPool.js";

export interface BatcherOptions {
  ack: "durable" | "queued";
  /** How long the first records after a quiet spell wait for company; 0: only those of the same event-loop turn. */
  lingerMs: number;
  batchMax: number;
  queueMax: number;
  /**
   * While one batch is being written, the open batch goes to a second writer only once it holds this many
   * records; smaller ones wait for the writer in flight and grow (default: batchMax / 20, 500 records).
   */
  parallelMin?: number;
  /**
   * Called with each batch once it is committed: the organisations it holds records of, its bytes as packBatch
   * made them (handed back by the writer thread: the caller's to move on), and the positions of its events that
   * it did not store.
   */
  onCommitted?: (orgs: readonly number[], packed: Uint8Array<ArrayBuffer>, notStored: readonly number[] | undefined) => void;
  /** Called with a request acknowledged before its commit (`queued`) that the database then refused on its own. */
  onRefusedAfterAck?: (s: Submission, message: string) => void;
  /** Called with the usage a committed batch left its organisations with, before its submissions are released. */
  onUsage?: (usage: UsageRow[]) => void;
  /** Called with the organisations of a batch the database refused past a quota: this process's view of them was behind. */
  onQuotaRefused?: (orgs: number[]) => void;
}

/** Who hears of a request's records: once, resolve or reject. */
export interface Waiter {
  resolve(): void;
  reject(err: AppError): void;
}

/** One request's records in a batch, and (durable acks) who waits for their commit. */
interface Part {
  submission: Submission;
  waiter: Waiter | undefined;
}

interface Batch {
  payload: BatchPayload;
  /** The organisations it holds records of, noted as they arrive (the shards that own them get it once committed). */
  orgs: number[];
  size: number;
  parts: Part[];
  /** When it was sent to a writer (performance.now()), for the commit time metric. */
  sentAt: number;
}

export interface Submission {
  /** The one organisation whose records these are (every row's first column). */
  org: number;
  events?: EventRow[];
  items?: ItemRow[];
  users?: UserRow[];
  /** Written in a transaction of its own, so that the database's refusal (a quota, near its limit) touches no other request. */
  alone?: boolean;
  /** Called once when the records leave the batcher, committed or refused (the quota's reservation ends). */
  release?: () => void;
}

const RETRY_MS = 500;
const FAILED_UNAVAILABLE = metrics.ingestBatchesFailed.labels({ reason: "unavailable" });
const FAILED_REJECTED = metrics.ingestBatchesFailed.labels({ reason: "rejected" });
const UNAVAILABLE = () => appError("unavailable", "databaseNothingStored");

function emptyBatch(): Batch {
  return { payload: { events: [], items: [], users: [] }, orgs: [], size: 0, parts: [], sentAt: 0 };
}

function soloBatch(part: Part): Batch {
  const b = emptyBatch();
  append(b, part.submission);
  b.size = sizeOf(part.submission);
  b.parts.push(part);
  return b;
}

function append(b: Batch, s: Submission): void {
  const { payload } = b;
  if (!b.orgs.includes(s.org)) b.orgs.push(s.org);
  if (s.events) for (const r of s.events) payload.events.push(r);
  if (s.items) for (const r of s.items) payload.items.push(r);
  if (s.users) for (const r of s.users) payload.users.push(r);
}

/** The organisations whose items or users a batch holds. */
function recordOrgs(payload: BatchPayload): number[] {
  const orgs = new Set<number>();
  for (const r of payload.items) orgs.add(r[0]);
  for (const r of payload.users) orgs.add(r[0]);
  return [...orgs];
}

function sizeOf(s: Submission): number {
  return (s.events?.length ?? 0) + (s.items?.length ?? 0) + (s.users?.length ?? 0);
}

/**
 * Group commit. Requests append to the open batch. With every writer idle, the open batch leaves after the
 * linger (or, with a linger of 0, at the end of the current event-loop turn, so that requests read together
 * are written together). While a batch is being written, the open batch grows and leaves when that write
 * ends, one commit for everything that arrived meanwhile; it takes a second writer at once only when it is
 * big (`parallelMin`), which keeps the writers busy with large arrays without splitting a stream of small
 * requests into many small transactions. A full batch (batchMax) is sealed and leaves on the next free writer.
 */
export class Batcher {
  private open: Batch = emptyBatch();
  private readonly sealed: Batch[] = [];
  private inFlight = 0;
  private pending = 0;
  private linger: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private drained: Array<() => void> = [];
  private readonly parallelMin: number;
  private closed = false;
  /** While held (an index snapshot's position is taken), no batch leaves: set by hold(), cleared by release(). */
  private held: { idle: Array<() => void> } | undefined;

  constructor(
    private readonly writers: WriterPool,
    private readonly health: DatabaseHealth,
    private readonly opts: BatcherOptions,
  ) {
    this.parallelMin = opts.parallelMin ?? Math.max(1, Math.floor(opts.batchMax / 20));
  }

  /**
   * Resolves when the records are committed (`durable`, or always with `untilCommitted`) or queued (`queued`);
   * 503 when they cannot be kept.
   */
  submit(s: Submission, untilCommitted = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      try {
        this.accept(s, { resolve, reject }, untilCommitted);
      } catch (err) {
        reject(err);
      }
    });
  }

  /**
   * submit() without a promise: `waiter` hears once the records are committed (`durable`) or queued (`queued`).
   * Throws the 503 AppError at once when they cannot be kept (the waiter then hears nothing, `release` is called).
   */
  accept(s: Submission, waiter: Waiter, untilCommitted = false): void {
    const size = sizeOf(s);
    const refusal = this.refusal(size);
    if (refusal) {
      s.release?.();
      throw refusal;
    }
    const durable = untilCommitted || this.opts.ack === "durable";
    const part: Part = { submission: s, waiter: durable ? waiter : undefined };
    this.pending += size;
    if (s.alone) {
      this.sealed.push(soloBatch(part));
    } else {
      if (this.open.size > 0 && this.open.size + size > this.opts.batchMax) this.seal();
      const b = this.open;
      append(b, s);
      b.size += size;
      b.parts.push(part);
      if (b.size >= this.opts.batchMax) this.seal();
    }
    this.schedule();
    if (!durable) waiter.resolve();
  }

  /** Why records cannot be kept now, if they cannot. */
  private refusal(size: number): AppError | undefined {
    if (this.closed) return appError("unavailable", "shuttingDown");
    if (!this.health.isUp) return UNAVAILABLE();
    if (this.pending + size > this.opts.queueMax) return appError("unavailable", "ingestSaturated");
    return undefined;
  }

  /** Refuses further records, then resolves once every accepted one is written (shutdown). */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  /** Resolves once every accepted record is written. */
  flush(): Promise<void> {
    this.clearLinger();
    this.seal();
    this.dispatch();
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  get queued(): number {
    return this.pending;
  }

  private clearLinger(): void {
    if (this.linger) {
      if (this.opts.lingerMs > 0) clearTimeout(this.linger as NodeJS.Timeout);
      else clearImmediate(this.linger as NodeJS.Immediate);
    }
    this.linger = undefined;
  }

  private seal(): void {
    if (this.open.size === 0) return;
    this.sealed.push(this.open);
    this.open = emptyBatch();
  }

  private schedule(): void {
    if (this.inFlight >= this.writers.threads) return; // the next write to end takes what is waiting
    if (this.sealed.length > 0 || (this.inFlight > 0 && this.open.size >= this.parallelMin)) {
      this.dispatch();
      return;
    }
    // A write in flight takes the open batch when it ends; with every writer idle, wait out the linger.
    if (this.inFlight > 0 || this.linger) return;
    const fire = () => {
      this.linger = undefined;
      this.dispatch();
    };
    this.linger = this.opts.lingerMs > 0 ? setTimeout(fire, this.opts.lingerMs) : setImmediate(fire);
  }

  /**
   * Stops batches leaving and resolves once none is being written (each committed one then published): the
   * moment an index snapshot's position is taken at (src/recommend/indexSnapshots.ts). Requests keep being
   * accepted into the open batch meanwhile. release() lets them go.
   */
  hold(): Promise<void> {
    this.held ??= { idle: [] };
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.held!.idle.push(resolve));
  }

  release(): void {
    const held = this.held;
    this.held = undefined;
    for (const idle of held?.idle ?? []) idle();
    this.dispatch();
    if (this.open.size > 0) this.schedule();
  }

  private dispatch(): void {
    if (this.held) {
      if (this.inFlight === 0) {
        const idle = this.held.idle;
        this.held.idle = [];
        for (const resolve of idle) resolve();
      }
      return;
    }
    while (this.inFlight < this.writers.threads) {
      let batch = this.sealed.shift();
      if (!batch) {
        if (this.open.size === 0 || this.linger) return;
        if (this.inFlight > 0 && this.open.size < this.parallelMin) return;
        batch = this.open;
        this.open = emptyBatch();
      }
      this.inFlight++;
      const sent = batch;
      const packed = packBatch(sent.payload);
      metrics.ingestBatches.inc();
      metrics.ingestBatchRecords.observe(sent.size);
      sent.sentAt = performance.now();
      this.writers.write(packed).then(
        (r) => this.finish(sent, r),
        (err: Error) => this.finish(sent, { ok: false, unavailable: false, message: err.message }),
      );
    }
  }

  private finish(batch: Batch, result: WriteResult): void {
    this.inFlight--;
    if (result.ok) {
      metrics.ingestCommitSeconds.observe((performance.now() - batch.sentAt) / 1000);
      if (result.usage) this.opts.onUsage?.(result.usage);
      this.retire(batch);
      this.publish(batch, result);
      // The next batch leaves before the answers are written, so the database works while they go out.
      this.dispatch();
      for (const p of batch.parts) p.waiter?.resolve();
    } else if (result.unavailable) {
      FAILED_UNAVAILABLE.inc();
      this.failUnavailable(batch, result.message);
    } else {
      FAILED_REJECTED.inc();
      this.failRejected(batch, result.message, result.quotaExceeded === true);
    }
    this.dispatch();
    if (this.open.size > 0) this.schedule();
  }

  private publish(batch: Batch, { payload, notStored }: WriteResult & { ok: true }): void {
    if (!this.opts.onCommitted || !payload) return;
    try {
      this.opts.onCommitted(batch.orgs, payload, notStored && notStored.length > 0 ? notStored : undefined);
    } catch (err) {
      log.error("a committed batch could not be published", { error: (err as Error).stack });
    }
  }

  private failUnavailable(batch: Batch, message: string): void {
    log.warn("ingest batch not written: database unavailable", { records: batch.size, error: message });
    this.health.markDown(message);
    if (this.opts.ack === "queued") {
      // Already acknowledged: keep it and try again until the database takes it.
      setTimeout(() => {
        this.sealed.unshift(batch);
        this.dispatch();
      }, RETRY_MS).unref();
      return;
    }
    this.retire(batch);
    for (const p of batch.parts) p.waiter?.reject(UNAVAILABLE());
  }

  /**
   * The database refused the batch itself (not an outage). So that one request's records cannot fail the
   * others sharing its transaction (another tenant's, say), each request is written again on its own; only
   * the one that fails alone is refused.
   */
  private failRejected(batch: Batch, message: string, quotaExceeded: boolean): void {
    if (quotaExceeded) this.opts.onQuotaRefused?.(recordOrgs(batch.payload));
    if (batch.parts.length > 1) {
      log.warn("ingest batch refused; writing its requests one by one", { records: batch.size, requests: batch.parts.length, error: message });
      this.sealed.unshift(...batch.parts.map(soloBatch));
      return;
    }
    if (quotaExceeded) log.info("ingest request refused: quota", { records: batch.size, error: message });
    else log.error("ingest request refused by the database", { records: batch.size, error: message });
    this.retire(batch);
    const part = batch.parts[0]!;
    if (part.waiter) {
      part.waiter.reject(quotaExceeded ? appError("quota_exceeded", "refused", { reason: message }) : appError("internal_error", "recordsRefused"));
    } else {
      this.opts.onRefusedAfterAck?.(part.submission, message);
    }
  }

  /** The batch is answered: it no longer counts as pending, and its submissions release what they held. */
  private retire(batch: Batch): void {
    for (const p of batch.parts) p.submission.release?.();
    this.pending -= batch.size;
    if (this.pending === 0) {
      const waiting = this.drained;
      this.drained = [];
      for (const d of waiting) d();
    }
  }
}
