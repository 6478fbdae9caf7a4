import { z } from "zod";
import { AppError, isAppError } from "../errors.js";
import { log } from "../wire/log.js";
import type { Batcher, Submission } from "../ingest/batcher.js";
import { unpackBatch } from "../wire/batchPack.js";
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

/** What the stream tells the upload's reader: throttle the body, or stop it. */
export interface UploadControl {
  pause(): void;
  resume(): void;
  fail(err: AppError): void;
}

/**
 * Chunks of validated rows (packed by the parse thread) → batcher (committed, whatever INGEST_ACK says) →
 * counted. Each chunk is one submission, so an upload's rows take the same path (and reach the index) as any upsert.
 */
export class UploadStream {
  private accepted = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private waiting: Uint8Array[] = [];
  private failure: AppError | undefined;
  private paused = false;

  constructor(
    private readonly kind: UploadKind,
    private readonly batcher: Batcher,
    private readonly control: UploadControl,
  ) {}

  /** A chunk of rows from the parse thread; throws once a chunk could not be stored. */
  submit(packed: Uint8Array): void {
    if (this.failure) throw this.failure;
    this.waiting.push(packed);
    this.pump();
  }

  private pump(): void {
    while (!this.failure && this.waiting.length > 0 && this.inFlight.size < CHUNKS_IN_FLIGHT) this.send(this.waiting.shift()!);
  }

  private send(packed: Uint8Array): void {
    const payload = unpackBatch(packed);
    const submission: Submission = this.kind === "items" ? { items: payload.items } : { users: payload.users };
    const rows = this.kind === "items" ? payload.items.length : payload.users.length;
    const sent: Promise<void> = this.batcher
      .submit(submission, true)
      .then(
        () => {
          this.accepted += rows;
        },
        (err: unknown) => {
          if (this.failure) return;
          this.failure = this.stoppedBy(err);
          this.waiting = [];
          this.control.fail(this.failure);
        },
      )
      .finally(() => {
        this.inFlight.delete(sent);
        this.pump();
        if (this.paused && this.inFlight.size < CHUNKS_IN_FLIGHT) {
          this.paused = false;
          this.control.resume();
        }
      });
    this.inFlight.add(sent);
    if (!this.paused && this.inFlight.size >= CHUNKS_IN_FLIGHT) {
      this.paused = true;
      this.control.pause();
    }
  }

  /** Waits for every chunk's commit; the counts, or the error that stopped the upload. */
  async finish(parsed: { rejected: number; errors: UploadError[] }): Promise<UploadResult> {
    await this.settled();
    if (this.failure) throw this.failure;
    return { accepted: this.accepted, rejected: parsed.rejected, errors: parsed.errors };
  }

  /** Waits for the chunks already sent (an upload stopped early still reports what it stored). */
  async settled(): Promise<number> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]); // each settling sends a waiting chunk
    return this.accepted;
  }

  private stoppedBy(err: unknown): AppError {
    if (isAppError(err)) return err;
    log.error("an upload chunk failed unexpectedly", { error: (err as Error)?.stack ?? String(err) });
    return new AppError("internal_error", "the database refused these rows");
  }
}
