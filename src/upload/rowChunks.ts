import type { z } from "zod";
import { isPlainValidEvent } from "../ingest/plainEvent.js";
import { isPlainValidItem, isPlainValidUser } from "../ingest/plainRecord.js";
import { EventSchema, ItemSchema, UserSchema, type Event } from "../ingest/schemas.js";
import { eventRow, itemRow, userRow } from "../ingest/toRows.js";
import { describeIssues } from "../errors.js";
import { packBatch } from "../wire/batchPack.js";
import { attributeBytes } from "../wire/attributeBytes.js";
import type { BatchPayload, EventRow, ItemRow, UserRow } from "../wire/batchRows.js";
import type { UploadKind } from "./csvRecords.js";
import type { RecordSink } from "./parser.js";

/**
 * Rows per packed chunk, and text per chunk (UTF-16 units of the records): the front thread unpacks a chunk
 * and the batcher packs it again in one go, so its size bounds that pause.
 */
const CHUNK_ROWS = 10_000;
const CHUNK_UNITS = 256 * 1024;
/** The answer lists the first errors only (CONTRACT 3). */
export const MAX_REPORTED_ERRORS = 100;
/** A reported error's message is cut to this many characters (a record with 100,000 unknown fields names them all). */
const MAX_MESSAGE_CHARS = 500;

type Row = ItemRow | UserRow | EventRow;

interface KindRules {
  schema: z.ZodType<unknown>;
  /** Vouches for plainly valid records without the schema (never rejects). */
  vouch(record: unknown): boolean;
  row(org: number, record: never): Row;
  payload(rows: Row[]): BatchPayload;
}

const RULES: Record<UploadKind, KindRules> = {
  items: { schema: ItemSchema, vouch: isPlainValidItem, row: itemRow, payload: (rows) => ({ events: [], items: rows as ItemRow[], users: [] }) },
  users: { schema: UserSchema, vouch: isPlainValidUser, row: userRow, payload: (rows) => ({ events: [], items: [], users: rows as UserRow[] }) },
  // An event without a timestamp happened when it is received, as on /v1/events/ingest: now, as its row is made.
  events: {
    schema: EventSchema,
    vouch: isPlainValidEvent,
    row: (org: number, e: Event) => eventRow(org, e, new Date().toISOString()),
    payload: (rows) => ({ events: rows as EventRow[], items: [], users: [] }),
  },
};

/**
 * On the parse thread: each parsed record → the upsert's schema → a row; rows leave packed in chunks
 * (`onChunk`), invalid records are counted and the first ones reported by line.
 */
export class RowChunks implements RecordSink {
  private readonly rules: KindRules;
  private readonly items: boolean;
  private rows: Row[] = [];
  /** Each row's file line and attribute bytes (items; 0 for users), beside `rows`. */
  private lines: number[] = [];
  private bytes: number[] = [];
  private units = 0;
  rejected = 0;
  readonly errors: Array<{ line: number; message: string }> = [];

  constructor(
    kind: UploadKind,
    private readonly orgSeq: number,
    private readonly onChunk: (
      packed: Uint8Array<ArrayBuffer>,
      count: number,
      lines: Int32Array<ArrayBuffer>,
      bytes: Float64Array<ArrayBuffer>,
    ) => void,
  ) {
    this.rules = RULES[kind];
    this.items = kind === "items";
  }

  record(value: unknown, line: number, units: number): void {
    let record = value;
    if (!this.rules.vouch(value)) {
      const r = this.rules.schema.safeParse(value);
      if (!r.success) {
        this.invalid(line, describeIssues(r.error.issues, "", "record").join("; "));
        return;
      }
      record = r.data;
    }
    const row = this.rules.row(this.orgSeq, record as never);
    this.rows.push(row);
    this.lines.push(line);
    this.bytes.push(this.items ? attributeBytes((row as ItemRow)[4]) : 0);
    this.units += units;
    if (this.rows.length >= CHUNK_ROWS || this.units >= CHUNK_UNITS) this.flush();
  }

  invalid(line: number, message: string): void {
    this.rejected++;
    if (this.errors.length >= MAX_REPORTED_ERRORS) return;
    this.errors.push({ line, message: message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : message });
  }

  /** Sends the rows gathered so far. */
  flush(): void {
    if (this.rows.length === 0) return;
    const count = this.rows.length;
    const packed = packBatch(this.rules.payload(this.rows));
    const lines = Int32Array.from(this.lines);
    const bytes = Float64Array.from(this.bytes);
    this.rows = [];
    this.lines = [];
    this.bytes = [];
    this.units = 0;
    this.onChunk(packed, count, lines, bytes);
  }
}
