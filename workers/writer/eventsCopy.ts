import { unpackValue } from "../../src/ingest/batchPack.js";
import { MsgpackCursor } from "../../src/ingest/msgpackCursor.js";
import { EVENT_COLUMN, EVENT_COLUMNS } from "../../src/ingest/rows.js";
import { EventIdSet } from "./eventIdSet.js";
import { endCopyMessage, frameBytes, writeCopyHead } from "./pipelinedCopy.js";

const { eventId: EVENT_ID, weight: WEIGHT, previousUserId: PREVIOUS_USER_ID, context: CONTEXT } = EVENT_COLUMN;
/** Output bytes a row may need besides twice its input: separators, `\N`s, and numbers' text. */
const ROW_SLACK = 64;
const UUID_BYTES = 36;

/** COPY text's escape letter for each byte that needs one (backslash, tab, newline, carriage return); 0 for the rest. */
const ESCAPE = new Uint8Array(256);
ESCAPE[0x5c] = 0x5c;
ESCAPE[0x09] = 0x74;
ESCAPE[0x0a] = 0x6e;
ESCAPE[0x0d] = 0x72;

const seen = new EventIdSet();
/** The last message's buffer, reused once its COPY has succeeded (large buffers are costly to map afresh). */
let spare: Buffer | undefined;
const SPARE_MAX_BYTES = 16 * 1024 * 1024;

export interface EventsCopy {
  message: Buffer;
  events: number;
}

/**
 * The direct COPY of a batch made only of events, built straight from its packed bytes: strings are copied
 * byte for byte (escaped), never decoded, and only contexts are unpacked. Undefined when the batch needs the
 * general path: it holds items or users, an identify with a previous id, an event id twice, or a value this
 * does not read in place (a string context, a float32). Give the message back with reuseEventsCopy once its COPY has succeeded.
 */
export function directEventsCopy(packed: Uint8Array, statement: string): EventsCopy | undefined {
  try {
    return readEvents(new MsgpackCursor(packed), packed.length, statement);
  } catch {
    // A shape this reader does not know: msgpackr unpacks it on the general path, and reports it if it is broken.
    return undefined;
  }
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

/** Keeps a message's buffer for the next one: call only after its COPY succeeded (the server has read it all). */
export function reuseEventsCopy(copy: EventsCopy): void {
  if (copy.message.buffer.byteLength <= SPARE_MAX_BYTES) spare = Buffer.from(copy.message.buffer);
}

function eventsMessage(c: MsgpackCursor, inputBytes: number, statement: string): EventsCopy | undefined {
  const rows = c.arrayLength();
  let out = buffer(frameBytes(statement) + 2 * inputBytes + ROW_SLACK * rows);
  // Room for the rest at worst (every byte escaped), plus `extra`: what a context's JSON adds beyond its packed bytes.
  const room = (at: number, rowsLeft: number, extra: number) => {
    const needed = at + 2 * (inputBytes - c.at) + ROW_SLACK * rowsLeft + extra + 5;
    if (needed > out.length) out = grown(out, at, needed);
  };
  const start = writeCopyHead(out, statement);
  let at = start;
  seen.reset(rows);
  for (let r = 0; r < rows; r++) {
    room(at, rows - r, 0);
    if (c.arrayLength() !== EVENT_COLUMNS) return undefined;
    const org = c.number();
    if (org === undefined || !Number.isInteger(org)) return undefined;
    at = writeNumber(out, at, org);
    for (let col = 1; col < EVENT_COLUMNS; col++) {
      out[at++] = 0x09;
      if (col === WEIGHT) {
        const w = c.number();
        if (w === undefined) return undefined;
        at = writeNumber(out, at, w);
      } else if (col === CONTEXT) {
        const json = contextText(c);
        if (json === undefined) return undefined;
        if (json) room(at, rows - r, 2 * json.length);
        at = json ? writeEscaped(json, 0, json.length, out, at) : writeNull(out, at);
      } else {
        const n = c.stringLength();
        if (n < 0) {
          if (col === EVENT_ID) return undefined;
          at = writeNull(out, at);
          continue;
        }
        if (col === PREVIOUS_USER_ID) return undefined;
        if (col === EVENT_ID && (n !== UUID_BYTES || seen.add(org, c.bytes, c.at) !== true)) return undefined;
        at = writeEscaped(c.bytes, c.at, n, out, at);
        c.at += n;
      }
    }
    out[at++] = 0x0a;
  }
  return { message: endCopyMessage(out, start, at), events: rows };
}

/** A context's text as copyField writes it (JSON), null for none; undefined for a string, which copyField would not quote. */
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

function writeNull(out: Buffer, at: number): number {
  out[at] = 0x5c; // \N
  out[at + 1] = 0x4e;
  return at + 2;
}

function writeEscaped(src: Uint8Array, from: number, n: number, out: Buffer, at: number): number {
  for (let i = from; i < from + n; i++) {
    const b = src[i]!;
    const e = ESCAPE[b]!;
    if (e === 0) {
      out[at++] = b;
    } else {
      out[at++] = 0x5c;
      out[at++] = e;
    }
  }
  return at;
}

/** A number as String() writes it; small whole numbers digit by digit. */
function writeNumber(out: Buffer, at: number, n: number): number {
  if (!Number.isInteger(n) || n < -0x7fffffff || n > 0x7fffffff) return at + out.write(String(n), at, "latin1");
  if (n < 0) {
    out[at++] = 0x2d;
    n = -n;
  }
  let digits = 1;
  for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++;
  for (let i = at + digits - 1; i >= at; i--) {
    out[i] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + digits;
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
