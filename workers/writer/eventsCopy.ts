import { unpackValue } from "../../src/wire/batchPack.js";
import { MsgpackCursor, sameBytes } from "../../src/wire/msgpackCursor.js";
import { EVENT_COLUMN, EVENT_COLUMNS } from "../../src/wire/batchRows.js";
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
/** The batch's current time as a binary timestamptz. */
const time = Buffer.alloc(8);
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
    return readEvents(new MsgpackCursor(packed), packed.length, statement);
  } catch {
    // A shape this reader does not know: msgpackr unpacks it on the general path, and reports it if it is broken.
    return undefined;
  }
}

/** Keeps a message's buffer for the next one: call only after its COPY succeeded (the server has read it all). */
export function reuseEventsCopy(copy: EventsCopy): void {
  if (copy.message.buffer.byteLength <= SPARE_MAX_BYTES) spare = Buffer.from(copy.message.buffer);
}

function readEvents(c: MsgpackCursor, inputBytes: number, statement: string): EventsCopy | undefined {
  let copy: EventsCopy | undefined;
  for (let keys = c.mapLength(); keys > 0; keys--) {
    const key = c.string();
    if (key === "events") {
      copy = eventsMessage(c, inputBytes, statement);
      if (!copy) return undefined;
    } else if (c.arrayLength() !== 0) {
      return undefined;
    }
  }
  return copy && copy.events > 0 ? copy : undefined;
}

function eventsMessage(c: MsgpackCursor, inputBytes: number, statement: string): EventsCopy | undefined {
  const rows = c.arrayLength();
  const fixed = frameBytes(statement) + BINARY_HEADER.length + BINARY_TRAILER.length;
  let out = buffer(fixed + inputBytes + ROW_SLACK * rows);
  // Room for the rest at worst, plus `extra`: what a context's JSON adds beyond its packed bytes.
  const room = (at: number, rowsLeft: number, extra: number) => {
    const needed = at + (inputBytes - c.at) + ROW_SLACK * rowsLeft + extra + fixed;
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
  let timeAt = -1;
  let timeBytes = 0;
  for (let r = 0; r < rows; r++) {
    room(at, rows - r, 0);
    if (c.arrayLength() !== EVENT_COLUMNS) return undefined;
    out[at++] = 0;
    out[at++] = EVENT_COLUMNS;
    const org = c.number();
    if (org === undefined || !Number.isInteger(org) || org < 0 || org > 0x7fffffff) return undefined;
    at = int32(out, int32(out, at, 4), org);
    for (let col = 1; col < EVENT_COLUMNS; col++) {
      switch (col) {
        case EVENT_COLUMN.eventId: {
          const n = c.stringLength();
          if (n !== UUID_BYTES || !parseUuid(c.bytes, c.at, uuid) || !seen.add(org, uuid)) return undefined;
          c.at += n;
          at = int32(out, int32(out, int32(out, int32(out, int32(out, at, 16), uuid[0]!), uuid[1]!), uuid[2]!), uuid[3]!);
          ids[idAt++] = 0;
          ids[idAt++] = 2;
          idAt = int32(ids, int32(ids, idAt, 4), org);
          idAt = int32(ids, int32(ids, int32(ids, int32(ids, int32(ids, idAt, 16), uuid[0]!), uuid[1]!), uuid[2]!), uuid[3]!);
          break;
        }
        case EVENT_COLUMN.weight: {
          const w = c.number();
          if (w === undefined) return undefined;
          at = out.writeFloatBE(w, int32(out, at, 4));
          break;
        }
        case EVENT_COLUMN.previousUserId:
          if (!c.isNil()) return undefined; // an identify alias: the general path records it
          c.at++;
          at = int32(out, at, -1);
          break;
        case EVENT_COLUMN.context: {
          const json = contextText(c);
          if (json === undefined) return undefined;
          if (json === null) {
            at = int32(out, at, -1);
            break;
          }
          room(at, rows - r, json.length);
          at = int32(out, at, 1 + json.length);
          out[at++] = JSONB_VERSION;
          at += json.copy(out, at);
          break;
        }
        case EVENT_COLUMN.occurredAt: {
          const n = c.stringLength();
          if (n < 0) return undefined;
          // Events stamped at receipt share their time text: convert it once.
          if (timeAt < 0 || !sameBytes(c.bytes, c.at, n, timeAt, timeBytes)) {
            const t = postgresMicros(c.bytes, c.at, n);
            if (t === undefined) return undefined;
            time.writeBigInt64BE(t);
            timeAt = c.at;
            timeBytes = n;
          }
          c.at += n;
          at = int32(out, at, 8);
          for (let i = 0; i < 8; i++) out[at++] = time[i]!;
          break;
        }
        default: {
          const n = c.stringLength();
          if (n < 0) {
            at = int32(out, at, -1);
            break;
          }
          at = copyBytes(c.bytes, c.at, n, out, int32(out, at, n));
          c.at += n;
        }
      }
    }
  }
  at += BINARY_TRAILER.copy(out, at);
  idAt += BINARY_TRAILER.copy(ids, idAt);
  ids[idAt++] = 0x63; // 'c'
  idAt = ids.writeInt32BE(4, idAt);
  return { message: endCopyMessage(out, start, at), ids: ids.subarray(0, idAt), events: rows };
}

/** A context's JSON as the text path writes it, null for none; undefined for a string, which that path would not quote. */
function contextText(c: MsgpackCursor): Buffer | null | undefined {
  if (c.isNil()) {
    c.at++;
    return null;
  }
  const from = c.at;
  c.skip();
  const value = unpackValue(c.bytes.subarray(from, c.at));
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
