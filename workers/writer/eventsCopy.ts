import { unpackValue } from "../../src/wire/batchPack.js";
import { EVENT_COLUMN, EVENT_COLUMNS } from "../../src/wire/batchRows.js";
import { PackedEvents } from "../../src/wire/packedEvents.js";
import { TimeText } from "../../src/wire/timeText.js";
import { BINARY_HEADER, BINARY_TRAILER } from "./binaryCopy.js";
import { EventIdSet, parseUuid } from "./eventIdSet.js";
import { postgresMicros } from "./isoTime.js";
import { endCopyMessage, frameBytes, writeCopyHead } from "./pipelinedCopy.js";

/** Bytes a row may need besides its strings' own: field count, lengths, the fixed-size values. */
const ROW_SLACK = 2 + 4 * EVENT_COLUMNS + 4 + 16 + 4 + 8 + 1;
const UUID_BYTES = 36;
/** jsonb's binary form: a version byte, then the JSON text. */
const JSONB_VERSION = 1;

const seen = new EventIdSet();
const uuid = new Int32Array(4);
/** The last message's buffer, reused once its COPY has succeeded (large buffers are costly to map afresh). */
let spare: Buffer | undefined;
const SPARE_MAX_BYTES = 16 * 1024 * 1024;

export interface EventsCopy {
  message: Buffer;
  /** The CopyData and CopyDone of the second COPY the statement names: the batch's ids, into `event_ids`. */
  ids: Buffer;
  events: number;
}

/** Bytes of one `event_ids` row: field count, then org and uuid with their lengths. */
const ID_ROW_BYTES = 2 + 4 + 4 + 4 + 16;
/** Reused from batch to batch: a writer has one batch in flight, and the server has read it all once its COPY ended. */
let idsOut = Buffer.alloc(0);

/**
 * The direct COPY of a batch made only of events, in PostgreSQL's binary format, built straight from the
 * batch's packed bytes: strings are copied as they are (UTF-8 both), ids and times are converted once here
 * rather than parsed as text by PostgreSQL (about a fifth of its cost per row), and only contexts are
 * unpacked. `statement` must name the columns of EventRow in order, `FROM STDIN (FORMAT binary)`.
 *
 * Undefined when the batch needs the general path: it holds items or users, an identify with a previous id,
 * an event id twice, or a value this does not convert (a string context, a time spelled otherwise than
 * postgresMicros reads). Give the message back with reuseEventsCopy once its COPY has succeeded.
 *
 * `statement` must then name a second COPY, `event_ids (org, event_id) FROM STDIN (FORMAT binary)`: its rows,
 * the same ids, go in `ids`, to be sent right after the message.
 */
export function directEventsCopy(packed: Uint8Array, statement: string): EventsCopy | undefined {
  try {
    return eventsMessage(new PackedEvents(packed), statement);
  } catch {
    // A shape the reader does not know: msgpackr unpacks it on the general path, and reports it if it is broken.
    return undefined;
  }
}

/** Keeps a message's buffer for the next one: call only after its COPY succeeded (the server has read it all). */
export function reuseEventsCopy(copy: EventsCopy): void {
  if (copy.message.buffer.byteLength <= SPARE_MAX_BYTES) spare = Buffer.from(copy.message.buffer);
}

/** A time text as a binary timestamptz (8 bytes), or undefined for a spelling postgresMicros does not read. */
function timestamptz(bytes: Uint8Array, at: number, n: number): Buffer | undefined {
  const micros = postgresMicros(bytes, at, n);
  if (micros === undefined) return undefined;
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(micros);
  return b;
}

function eventsMessage(e: PackedEvents, statement: string): EventsCopy | undefined {
  const rows = e.open();
  if (!e.onlyEvents || rows === 0) return undefined;
  const { bytes, at: colAt, length: colLength } = e;
  const inputBytes = bytes.length;
  const fixed = frameBytes(statement) + BINARY_HEADER.length + BINARY_TRAILER.length;
  let out = buffer(fixed + inputBytes + ROW_SLACK * rows);
  // Room for the rest at worst, from the row starting at `rowAt` on, plus `extra`: what a context's JSON adds beyond its packed bytes.
  const room = (at: number, rowAt: number, rowsLeft: number, extra: number) => {
    const needed = at + (inputBytes - rowAt) + ROW_SLACK * rowsLeft + extra + fixed;
    if (needed > out.length) out = grown(out, at, needed);
  };
  const start = writeCopyHead(out, statement);
  let at = start + BINARY_HEADER.copy(out, start);
  seen.reset(rows);
  const idsBytes = 1 + 4 + BINARY_HEADER.length + ID_ROW_BYTES * rows + BINARY_TRAILER.length + 5;
  if (idsOut.length < idsBytes) idsOut = Buffer.allocUnsafeSlow(Math.max(idsBytes, 2 * idsOut.length));
  const ids = idsOut;
  ids[0] = 0x64; // 'd'
  ids.writeInt32BE(4 + idsBytes - 1 - 4 - 5, 1);
  let idAt = 5 + BINARY_HEADER.copy(ids, 5);
  const times = new TimeText(timestamptz);
  for (let r = 0; r < rows; r++) {
    const rowAt = e.offset;
    room(at, rowAt, rows - r, 0);
    e.next();
    out[at++] = 0;
    out[at++] = EVENT_COLUMNS;
    const org = e.org;
    if (!Number.isInteger(org) || org < 0 || org > 0x7fffffff) return undefined;
    at = int32(out, int32(out, at, 4), org);
    for (let col = 1; col < EVENT_COLUMNS; col++) {
      const from = colAt[col]!;
      const n = colLength[col]!;
      switch (col) {
        case EVENT_COLUMN.eventId: {
          if (n !== UUID_BYTES || !parseUuid(bytes, from, uuid) || !seen.add(org, uuid)) return undefined;
          at = int32(out, int32(out, int32(out, int32(out, int32(out, at, 16), uuid[0]!), uuid[1]!), uuid[2]!), uuid[3]!);
          ids[idAt++] = 0;
          ids[idAt++] = 2;
          idAt = int32(ids, int32(ids, idAt, 4), org);
          idAt = int32(ids, int32(ids, int32(ids, int32(ids, int32(ids, idAt, 16), uuid[0]!), uuid[1]!), uuid[2]!), uuid[3]!);
          break;
        }
        case EVENT_COLUMN.weight:
          at = out.writeFloatBE(e.weight, int32(out, at, 4));
          break;
        case EVENT_COLUMN.previousUserId:
          if (n >= 0) return undefined; // an identify alias: the general path records it
          at = int32(out, at, -1);
          break;
        case EVENT_COLUMN.context: {
          if (n < 0) {
            at = int32(out, at, -1);
            break;
          }
          const json = contextText(bytes, from, n);
          if (json === undefined) return undefined;
          room(at, rowAt, rows - r, json.length);
          at = int32(out, at, 1 + json.length);
          out[at++] = JSONB_VERSION;
          at += json.copy(out, at);
          break;
        }
        case EVENT_COLUMN.occurredAt: {
          if (n < 0) return undefined;
          const time = times.of(bytes, from, n);
          if (time === undefined) return undefined;
          at = int32(out, at, 8);
          for (let i = 0; i < 8; i++) out[at++] = time[i]!;
          break;
        }
        default:
          at = n < 0 ? int32(out, at, -1) : copyBytes(bytes, from, n, out, int32(out, at, n));
      }
    }
  }
  at += BINARY_TRAILER.copy(out, at);
  idAt += BINARY_TRAILER.copy(ids, idAt);
  ids[idAt++] = 0x63; // 'c'
  idAt = ids.writeInt32BE(4, idAt);
  return { message: endCopyMessage(out, start, at), ids: ids.subarray(0, idAt), events: rows };
}

/** A context's JSON (its packed value at `bytes[at, at + n)`) as the text path writes it; undefined for a string, which that path would not quote. */
function contextText(bytes: Uint8Array, at: number, n: number): Buffer | undefined {
  const value = unpackValue(bytes.subarray(at, at + n));
  if (typeof value === "string") return undefined;
  return Buffer.from(typeof value === "object" ? JSON.stringify(value) : String(value));
}

/** Writes a big-endian int32; returns the position after it. */
function int32(out: Buffer, at: number, v: number): number {
  out[at] = v >>> 24;
  out[at + 1] = v >>> 16;
  out[at + 2] = v >>> 8;
  out[at + 3] = v;
  return at + 4;
}

function copyBytes(src: Uint8Array, from: number, n: number, out: Buffer, at: number): number {
  if (n > 64) out.set(src.subarray(from, from + n), at);
  else for (let i = 0; i < n; i++) out[at + i] = src[from + i]!;
  return at + n;
}

/** A bigger buffer holding the first `used` bytes of `out`. */
function grown(out: Buffer, used: number, bytes: number): Buffer {
  const b = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * out.length));
  out.copy(b, 0, 0, used);
  return b;
}

function buffer(bytes: number): Buffer {
  const b = spare && spare.length >= bytes ? spare : Buffer.allocUnsafeSlow(bytes);
  spare = undefined;
  return b;
}
