import { z } from "zod";
import { appError, type AppError, isAppError } from "../errors.js";
import { log } from "../wire/log.js";
import type { Batcher, Submission } from "../ingest/batcher.js";
import type { OrgQuotas, OrgQuotaState } from "../ingest/quotas.js";
import { unpackBatch } from "../wire/batchPack.js";
import type { EventRow, ItemRow, UserRow } from "../wire/batchRows.js";
import type { UploadKind } from "./csvRecords.js";
import { MAX_REPORTED_ERRORS } from "./rowChunks.js";

/**
 * How many chunks of rows may wait for their commit; the body is paused meanwhile, and the chunks the parse
 * thread still makes of its backlog wait here, packed, for their turn.
 */
const CHUNKS_IN_FLIGHT = 4;

const UploadErrorSchema = z.strictObject({
  line: z.number().int().min(1).meta({ description: "The file's line, counted from 1 (a CSV header is line 1)." }),
  message: z.string(),
});
export type UploadError = z.infer<typeof UploadErrorSchema>;

export const UploadResultSchema = z.strictObject({
  accepted: z.number().int().min(0),
  rejected: z.number().int().min(0),
  errors: z
    .array(UploadErrorSchema)
    .max(MAX_REPORTED_ERRORS)
    .meta({ description: `The first ${MAX_REPORTED_ERRORS} rejected rows.` }),
});
export type UploadResult = z.infer<typeof UploadResultSchema>;

/** Rows packed by the parse thread, with each row's file line and (items) attribute bytes, for the quotas. */
export interface RowChunk {
  packed: Uint8Array;
  lines: Int32Array;
  bytes: Float64Array;
}

type Row = ItemRow | UserRow | EventRow;

/** What the stream tells the upload's reader: throttle the body, or stop it. */
export interface UploadControl {
  pause(): void;
  resume(): void;
  fail(err: AppError): void;
}

/**
 * Chunks of validated rows (packed by the parse thread) → batcher (committed, whatever INGEST_ACK says) →
 * counted. Each chunk is one submission, so an upload's rows take the same path (and reach the index) as any upsert.
 *
 * Quotas: a chunk whose worst case (every row new) fits beside what is in flight goes at once. Otherwise the
 * upload turns careful: it waits for its own chunks' commits, asks the database which rows of the chunk are
 * stored already (OrgQuotas.fitRows), rejects the rows past the quota with its message, as invalid rows are,
 * and sends the rest alone; later chunks queue behind that check. A chunk the database still refuses (another
 * process took the last of the quota meanwhile) stops the upload with 403, as any failed chunk does.
 */
export class UploadStream {
  private accepted = 0;
  /** Rows refused by a quota (the parse thread counts the invalid ones). */
  private rejected = 0;
  private readonly errors: UploadError[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly fast = new Set<Promise<void>>();
  /** The end of the queue of careful chunks, while there is one. */
  private careful: Promise<void> | undefined;
  private waiting: RowChunk[] = [];
  private failure: AppError | undefined;
  private paused = false;

  constructor(
    private readonly kind: UploadKind,
    private readonly orgSeq: number,
    private readonly batcher: Batcher,
    private readonly control: UploadControl,
    private readonly quotas: OrgQuotas,
    private readonly quota: OrgQuotaState,
  ) {}

  /** A chunk of rows from the parse thread; throws once a chunk could not be stored. */
  submit(chunk: RowChunk): void {
    if (this.failure) throw this.failure;
    this.waiting.push(chunk);
    this.pump();
  }

  private pump(): void {
    while (!this.failure && this.waiting.length > 0 && this.inFlight.size < CHUNKS_IN_FLIGHT) this.send(this.waiting.shift()!);
  }

  private send(chunk: RowChunk): void {
    const payload = unpackBatch(chunk.packed);
    const rows: Row[] = this.kind === "items" ? payload.items : this.kind === "users" ? payload.users : payload.events;
    let total = 0;
    for (const b of chunk.bytes) total += b;
    let sent: Promise<void>;
    if (this.kind === "events") {
      // Events count against no quota (as on /v1/events/ingest): each chunk goes as it comes.
      sent = this.storeEvents(rows as EventRow[]);
    } else if (!this.careful && this.quotas.fits(this.quota, this.kind, rows.length, total)) {
      sent = this.store(rows, total, false);
      this.fast.add(sent);
      void sent.finally(() => this.fast.delete(sent));
    } else {
      sent = (this.careful ?? Promise.resolve()).then(() => this.storeFitting(rows, chunk.bytes, chunk.lines));
      this.careful = sent;
      void sent.finally(() => {
        if (this.careful === sent) this.careful = undefined;
      });
    }
    const tracked: Promise<void> = sent
      .catch((err: unknown) => {
        if (this.failure) return;
        this.failure = this.stoppedBy(err);
        this.waiting = [];
        this.control.fail(this.failure);
      })
      .finally(() => {
        this.inFlight.delete(tracked);
        this.pump();
        if (this.paused && this.inFlight.size < CHUNKS_IN_FLIGHT) {
          this.paused = false;
          this.control.resume();
        }
      });
    this.inFlight.add(tracked);
    if (!this.paused && this.inFlight.size >= CHUNKS_IN_FLIGHT) {
      this.paused = true;
      this.control.pause();
    }
  }

  /** A chunk of events to the batcher, which stores a resent `event_id` once; counted once committed. */
  private async storeEvents(rows: EventRow[]): Promise<void> {
    await this.batcher.submit({ org: this.orgSeq, events: rows }, true);
    this.accepted += rows.length;
  }

  /** Near the quota: after the upload's other chunks commit, the rows that fit, alone; the others rejected. */
  private async storeFitting(rows: Row[], bytes: Float64Array, lines: Int32Array): Promise<void> {
    if (this.kind === "events") return; // events have no quota: never careful
    if (this.failure) return;
    while (this.fast.size > 0) await Promise.allSettled([...this.fast]);
    if (this.failure) return;
    const verdicts = await this.quotas.fitRows(
      this.orgSeq,
      this.kind,
      rows.map((r) => r[1] as string),
      Array.from(bytes),
    );
    const kept: Row[] = [];
    let total = 0;
    verdicts.forEach((refusal, i) => {
      if (refusal === undefined) {
        kept.push(rows[i]!);
        total += bytes[i]!;
      } else {
        this.rejected++;
        if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ line: lines[i]!, message: refusal });
      }
    });
    if (kept.length > 0) await this.store(kept, total, true);
  }

  /** One chunk to the batcher, its quota reserved until it leaves; counted once committed. */
  private async store(rows: Row[], bytes: number, alone: boolean): Promise<void> {
    const org = this.orgSeq;
    const submission: Submission = this.kind === "items" ? { org, items: rows as ItemRow[] } : { org, users: rows as UserRow[] };
    this.quotas.reserve(this.quota, submission, bytes, () => bytes);
    if (alone) submission.alone = true;
    await this.batcher.submit(submission, true);
    this.accepted += rows.length;
  }

  /** Waits for every chunk's commit; the counts (the parse thread's and the quota's refusals together), or the error that stopped the upload. */
  async finish(parsed: { rejected: number; errors: UploadError[] }): Promise<UploadResult> {
    await this.catchUp();
    if (this.failure) throw this.failure;
    const errors = [...parsed.errors, ...this.errors].sort((a, b) => a.line - b.line).slice(0, MAX_REPORTED_ERRORS);
    return { accepted: this.accepted, rejected: parsed.rejected + this.rejected, errors };
  }

  /** Waits for the chunks already sent (an upload stopped early still reports what it stored). */
  async catchUp(): Promise<number> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]); // each commit sends a waiting chunk
    return this.accepted;
  }

  private stoppedBy(err: unknown): AppError {
    if (isAppError(err)) return err;
    log.error("an upload chunk failed unexpectedly", { error: (err as Error)?.stack ?? String(err) });
    return appError("internal_error", "rowsRefused");
  }
}
