import { z } from "zod";
import { AppError, isAppError } from "../errors.js";
import { log } from "../wire/log.js";
import type { Batcher, Submission } from "../ingest/batcher.js";
import type { ItemRow, UserRow } from "../wire/batchRows.js";
import { itemRow, userRow } from "../ingest/toRows.js";
import { isPlainValidItem, isPlainValidUser } from "../ingest/plainRecord.js";
import { ItemSchema, UserSchema } from "../ingest/schemas.js";
import { issueMessage } from "../ingest/validate.js";
import type { UploadKind } from "./csvRecords.js";
import type { RecordSink } from "./parser.js";
import type { Flow } from "./uploadFeed.js";

/**
 * A submission to the batcher holds at most this many rows, and rows of at most this much text: the batch
 * is packed on the front thread in one go, so its size bounds that pause. How many submissions may wait for
 * their commit before the body is paused.
 */
const CHUNK_ROWS = 10_000;
const CHUNK_UNITS = 1024 * 1024;
const CHUNKS_IN_FLIGHT = 4;
/** The answer lists the first errors only (CONTRACT 3). */
export const MAX_REPORTED_ERRORS = 100;

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

type Row = ItemRow | UserRow;

interface KindRules {
  schema: z.ZodType<unknown>;
  /** Vouches for plainly valid records without the schema (never rejects). */
  vouch(record: unknown): boolean;
  row(org: number, record: never): Row;
  submission(rows: Row[]): Submission;
}

const RULES: Record<UploadKind, KindRules> = {
  items: { schema: ItemSchema, vouch: isPlainValidItem, row: itemRow, submission: (rows) => ({ items: rows as ItemRow[] }) },
  users: { schema: UserSchema, vouch: isPlainValidUser, row: userRow, submission: (rows) => ({ users: rows as UserRow[] }) },
};

/**
 * parsed record → the upsert's schema → rows in chunks → batcher (committed, whatever INGEST_ACK says) → counted.
 * Each chunk is one submission, so an upload's rows take the same path (and reach the index) as any upsert.
 */
export class UploadStream implements RecordSink {
  private readonly rules: KindRules;
  private rows: Row[] = [];
  private rowUnits = 0;
  private accepted = 0;
  private rejected = 0;
  private readonly errors: UploadError[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: AppError | undefined;
  private paused = false;

  constructor(
    kind: UploadKind,
    private readonly orgSeq: number,
    private readonly batcher: Batcher,
    private readonly flow: Flow,
  ) {
    this.rules = RULES[kind];
  }

  record(value: unknown, line: number, units: number): void {
    if (this.failure) throw this.failure; // a chunk could not be stored: stop reading the body
    let record = value;
    if (!this.rules.vouch(value)) {
      const r = this.rules.schema.safeParse(value);
      if (!r.success) {
        this.invalid(line, r.error.issues.map((i) => `${i.path.join(".") || "record"}: ${issueMessage(i)}`).join("; "));
        return;
      }
      record = r.data;
    }
    this.rows.push(this.rules.row(this.orgSeq, record as never));
    this.rowUnits += units;
    if (this.rows.length >= CHUNK_ROWS || this.rowUnits >= CHUNK_UNITS) this.send();
  }

  invalid(line: number, message: string): void {
    this.rejected++;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ line, message });
  }

  /** Sends what is left, waits for every chunk's commit; the counts, or the error that stopped the upload. */
  async finish(): Promise<UploadResult> {
    if (!this.failure) this.send();
    await this.settled();
    if (this.failure) throw this.failure;
    return { accepted: this.accepted, rejected: this.rejected, errors: this.errors };
  }

  /** Waits for the chunks already sent (an upload stopped early still reports what it stored). */
  async settled(): Promise<number> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    return this.accepted;
  }

  private send(): void {
    if (this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    this.rowUnits = 0;
    const sent: Promise<void> = this.batcher
      .submit(this.rules.submission(rows), true)
      .then(
        () => {
          this.accepted += rows.length;
        },
        (err: unknown) => {
          this.failure ??= this.stoppedBy(err);
        },
      )
      .finally(() => {
        this.inFlight.delete(sent);
        if (this.paused && this.inFlight.size < CHUNKS_IN_FLIGHT) {
          this.paused = false;
          this.flow.resume();
        }
      });
    this.inFlight.add(sent);
    if (!this.paused && this.inFlight.size >= CHUNKS_IN_FLIGHT) {
      this.paused = true;
      this.flow.pause();
    }
  }

  private stoppedBy(err: unknown): AppError {
    if (isAppError(err)) return err;
    log.error("an upload chunk failed unexpectedly", { error: (err as Error)?.stack ?? String(err) });
    return new AppError("internal_error", "the database refused these rows");
  }
}
