import { MsgpackCursor, sameBytes, utf8Text } from "../../src/wire/msgpackCursor.js";
import { EVENT_COLUMN, EVENT_COLUMNS } from "../../src/wire/batchRows.js";

export const FAMILY = { other: 0, engagement: 1, conversion: 2, exposure: 3 } as const;

/**
 * One event of a packed batch, its text fields left in place as (start, length) in `bytes`. The walk hands
 * out the same object for every event: read it in the callback, do not keep it.
 */
export interface PackedEvent {
  bytes: Uint8Array;
  /** Its position in the batch's events. */
  position: number;
  org: number;
  userAt: number;
  userBytes: number;
  /** itemBytes is -1 when the event names no item. */
  itemAt: number;
  itemBytes: number;
  family: number;
  /** event_name is `identify` */
  identify: boolean;
  /** previousUserBytes is -1 when there is no previous_user_id. */
  previousUserAt: number;
  previousUserBytes: number;
  weight: number;
  atS: number;
}

const ENGAGEMENT = Buffer.from("engagement");
const CONVERSION = Buffer.from("conversion");
const EXPOSURE = Buffer.from("exposure");
const IDENTIFY = Buffer.from("identify");

/**
 * Calls `visit` with each event of a batch packed by packBatch, reading it in place. False (and no event
 * visited) when the batch also holds items or users: those must be applied first, from the unpacked batch.
 */
export function eachPackedEvent(packed: Uint8Array, visit: (e: PackedEvent) => void): boolean {
  const c = new MsgpackCursor(packed);
  let eventsAt = -1;
  for (let keys = c.mapLength(); keys > 0; keys--) {
    const key = c.string();
    if (key === "events") {
      eventsAt = c.at;
      c.skip();
    } else if (c.arrayLength() !== 0) {
      return false;
    }
  }
  if (eventsAt < 0) return true;
  c.at = eventsAt;
  const e: PackedEvent = {
    bytes: packed,
    position: 0,
    org: 0,
    userAt: 0,
    userBytes: 0,
    itemAt: 0,
    itemBytes: -1,
    family: 0,
    identify: false,
    previousUserAt: 0,
    previousUserBytes: -1,
    weight: 0,
    atS: 0,
  };
  let timeAt = -1;
  let timeBytes = 0;
  for (let rows = c.arrayLength(), r = 0; r < rows; r++) {
    if (c.arrayLength() !== EVENT_COLUMNS) throw new Error("packed batch: an event row of another length");
    e.position = r;
    for (let col = 0; col < EVENT_COLUMNS; col++) {
      switch (col) {
        case EVENT_COLUMN.org:
          e.org = number(c);
          break;
        case EVENT_COLUMN.weight:
          e.weight = number(c);
          break;
        case EVENT_COLUMN.userId:
          e.userBytes = text(c);
          e.userAt = c.at - e.userBytes;
          break;
        case EVENT_COLUMN.itemId:
          e.itemBytes = optionalText(c);
          e.itemAt = c.at - e.itemBytes;
          break;
        case EVENT_COLUMN.previousUserId:
          e.previousUserBytes = optionalText(c);
          e.previousUserAt = c.at - e.previousUserBytes;
          break;
        case EVENT_COLUMN.family: {
          const n = text(c);
          e.family = familyOf(c.bytes, c.at - n, n);
          break;
        }
        case EVENT_COLUMN.name: {
          const n = text(c);
          e.identify = same(c.bytes, c.at - n, n, IDENTIFY);
          break;
        }
        case EVENT_COLUMN.occurredAt: {
          const n = text(c);
          // Events stamped at receipt share their time text: parse it once.
          if (timeAt < 0 || !sameBytes(c.bytes, c.at - n, n, timeAt, timeBytes)) {
            timeAt = c.at - n;
            timeBytes = n;
            e.atS = Date.parse(utf8Text(c.bytes, timeAt, n)) / 1000;
          }
          break;
        }
        default:
          c.skip();
      }
    }
    visit(e);
  }
  return true;
}

function number(c: MsgpackCursor): number {
  const n = c.number();
  if (n === undefined) throw new Error("packed batch: a number of a kind packBatch does not write");
  return n;
}

/** Moves past a string, returning its byte length. */
function text(c: MsgpackCursor): number {
  const n = c.stringLength();
  if (n < 0) throw new Error("packed batch: null where text is required");
  c.at += n;
  return n;
}

/** Moves past a string or nil, returning the string's byte length, or -1 for nil. */
function optionalText(c: MsgpackCursor): number {
  const n = c.stringLength();
  if (n > 0) c.at += n;
  return n;
}

function familyOf(bytes: Uint8Array, at: number, n: number): number {
  if (same(bytes, at, n, ENGAGEMENT)) return FAMILY.engagement;
  if (same(bytes, at, n, CONVERSION)) return FAMILY.conversion;
  if (same(bytes, at, n, EXPOSURE)) return FAMILY.exposure;
  return FAMILY.other;
}

function same(bytes: Uint8Array, at: number, n: number, word: Uint8Array): boolean {
  if (n !== word.length) return false;
  for (let i = 0; i < n; i++) if (bytes[at + i] !== word[i]) return false;
  return true;
}
