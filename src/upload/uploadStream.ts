import { z } from "zod";
import { AppError, isAppError } from "../errors.js";
import { log } from "../wire/log.js";
import type { Batcher, Submission } from "../ingest/batcher.js";
import type { ItemRow, UserRow } from "../wire/batchRows.js";
import { itemRow, userRow } from "../ingest/toRows.js";
import { isPlainValidItem, isPlainValidUser } from "../ingest/plainRecord.js";
import { ItemSchema, UserSchema } from "../ingest/schemas.js";
import { issueMessage } from "../ingest/validate.js";
import type { OrgQuotas, OrgQuotaState } from "../ingest/quotas.js";
import { attributeBytes } from "../wire/attributeBytes.js";
import type { UploadKind } from "./csvRecords.js";
import type { RecordSink } from "./parser.js";

/** Rows per submission to the batcher, and how many may wait for their commit before the socket is paused. */
const CHUNK_ROWS = 10_000;
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

/** Throttles the body: the upload pauses the socket while its stored rows lag behind. */
export interface Flow {
  pause(): void;
  resume(): void;
}

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
 *
 * Quotas: a chunk whose worst case (every row new) fits beside what is in flight goes at once. Otherwise the
 * upload turns careful: it waits for its own chunks' commits, asks the database which rows of the chunk are
 * stored already (OrgQuotas.fitRows), rejects the rows past the quota with its message, as invalid rows are,
 * and sends the rest alone; later chunks queue behind that check. A chunk the database still refuses (another
 * process took the last of the quota meanwhile) stops the upload with 403, as any failed chunk does.
 */
export class UploadStream implements RecordSink {
  private readonly rules: KindRules;
  private rows: Row[] = [];
  /** Each row's attribute bytes (items) and file line, beside `rows`. */
  private rowBytes: number[] = [];
  private rowLines: number[] = [];
  private readonly fast = new Set<Promise<void>>();
  /** The end of the queue of careful chunks, while there is one. */
  private careful: Promise<void> | undefined;
  private accepted = 0;
  private rejected = 0;
  private readonly errors: UploadError[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: AppError | undefined;
  private paused = false;

  constructor(
    private readonly kind: UploadKind,
    private readonly orgSeq: number,
    private readonly batcher: Batcher,
    private readonly flow: Flow,
    private readonly quotas: OrgQuotas,
    private readonly quota: OrgQuotaState,
  ) {
    this.rules = RULES[kind];
  }

  record(value: unknown, line: number): void {
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
    const row = this.rules.row(this.orgSeq, record as never);
    this.rows.push(row);
    this.rowBytes.push(this.kind === "items" ? attributeBytes(row[4]) : 0);
    this.rowLines.push(line);
    if (this.rows.length >= CHUNK_ROWS) this.send();
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
    const bytes = this.rowBytes;
    const lines = this.rowLines;
    this.rows = [];
    this.rowBytes = [];
    this.rowLines = [];
    let total = 0;
    for (const b of bytes) total += b;
    let sent: Promise<void>;
    if (!this.careful && this.quotas.fits(this.quota, this.kind, rows.length, total)) {
      sent = this.store(rows, total, false);
      this.fast.add(sent);
      void sent.finally(() => this.fast.delete(sent));
    } else {
      sent = (this.careful ?? Promise.resolve())
        .then(() => this.storeFitting(rows, bytes, lines))
        .catch((err: unknown) => {
          this.failure ??= this.stoppedBy(err);
        });
      this.careful = sent;
      void sent.finally(() => {
        if (this.careful === sent) this.careful = undefined;
      });
    }
    this.track(sent);
  }

  /** Near the quota: after the upload's other chunks commit, the rows that fit, alone; the others rejected. */
  private async storeFitting(rows: Row[], bytes: number[], lines: number[]): Promise<void> {
    if (this.failure) return;
    while (this.fast.size > 0) await Promise.all([...this.fast]);
    const verdicts = await this.quotas.fitRows(
      this.orgSeq,
      this.kind,
      rows.map((r) => r[1]),
      bytes,
    );
    const kept: Row[] = [];
    let total = 0;
    verdicts.forEach((refusal, i) => {
      if (refusal === undefined) {
        kept.push(rows[i]!);
        total += bytes[i]!;
      } else {
        this.invalid(lines[i]!, refusal);
      }
    });
    if (kept.length > 0) await this.store(kept, total, true);
  }

  /** One chunk to the batcher, its quota reserved until it leaves; counted once committed. */
  private store(rows: Row[], bytes: number, alone: boolean): Promise<void> {
    const submission = this.rules.submission(rows);
    this.quotas.reserve(this.quota, submission, bytes, () => bytes);
    if (alone) submission.alone = true;
    return this.batcher.submit(submission, true).then(
      () => {
        this.accepted += rows.length;
      },
      (err: unknown) => {
        this.failure ??= this.stoppedBy(err);
      },
    );
  }

  private track(sent: Promise<void>): void {
    void sent.finally(() => {
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
