import { EVENT_COLUMN as C } from "../../src/wire/batchRows.js";
import { FAMILY, familyOf, familyOfBytes, sameWord } from "../../src/wire/eventFamily.js";
import { utf8Text } from "../../src/wire/msgpackCursor.js";
import type { PackedEvents } from "../../src/wire/packedEvents.js";
import type { TimeText } from "../../src/wire/timeText.js";

/**
 * One id of an event, spelt as a string or, read in place from a packed batch, as UTF-8 bytes (`bytes[at, at +
 * n)`): the index looks those up by their bytes, making no string (ByteKeys). Absent: a null string, or n = -1.
 */
export class EventId {
  text: string | null = null;
  bytes: Uint8Array | null = null;
  at = 0;
  n = -1;

  setText(text: string | null): void {
    this.text = text;
    this.bytes = null;
  }

  setBytes(bytes: Uint8Array, at: number, n: number): void {
    this.bytes = bytes;
    this.at = at;
    this.n = n;
    this.text = null;
  }

  get present(): boolean {
    return this.bytes === null ? this.text !== null : this.n >= 0;
  }

  /** Present and not the empty string. */
  get filled(): boolean {
    return this.bytes === null ? !!this.text : this.n > 0;
  }

  toString(): string {
    return this.bytes === null ? this.text! : utf8Text(this.bytes, this.at, this.n);
  }
}

/** An event written as text, as a test or the evaluation's replay states one: OrgIndex.applyEvent normalises it. */
export interface EventText {
  userId: string;
  itemId: string | null;
  family: string;
  name: string;
  weight: number;
  previousUserId: string | null;
  atS: number;
}

const IDENTIFY = Buffer.from("identify");

/**
 * An event as the index applies it, whichever way it came (a load's rows, a committed batch of this process or
 * of another one, read in place, or unpacked when that fails): its family as a FAMILY number, whether it is an
 * identify, its time in seconds. Each source fills one and reuses it from event to event: read it, do not keep it.
 */
export class IndexEvent {
  family: number = FAMILY.other;
  /** event_name is `identify`: with a previous id, the previous id's history joins the user's. */
  identify = false;
  weight = 0;
  atS = 0;
  readonly user = new EventId();
  readonly item = new EventId();
  readonly previousUser = new EventId();

  /** From text fields (a load's rows, an unpacked batch's tuples). */
  fromText(userId: string, itemId: string | null, family: string, name: string, weight: number, previousUserId: string | null, atS: number): this {
    this.family = familyOf(family);
    this.identify = name === "identify";
    this.weight = weight;
    this.atS = atS;
    this.user.setText(userId);
    this.item.setText(itemId);
    this.previousUser.setText(previousUserId);
    return this;
  }

  /** From the row a reader of a packed batch is on; throws when a text the index needs is missing. */
  fromPacked(e: PackedEvents, times: TimeText<number>): this {
    const { bytes, at, length } = e;
    if (length[C.userId]! < 0 || length[C.family]! < 0 || length[C.name]! < 0 || length[C.occurredAt]! < 0) {
      throw new Error("packed batch: null where text is required");
    }
    this.family = familyOfBytes(bytes, at[C.family]!, length[C.family]!);
    this.identify = sameWord(bytes, at[C.name]!, length[C.name]!, IDENTIFY);
    this.weight = e.weight;
    this.atS = times.of(bytes, at[C.occurredAt]!, length[C.occurredAt]!);
    this.user.setBytes(bytes, at[C.userId]!, length[C.userId]!);
    this.item.setBytes(bytes, at[C.itemId]!, length[C.itemId]!);
    this.previousUser.setBytes(bytes, at[C.previousUserId]!, length[C.previousUserId]!);
    return this;
  }
}

/** The time text of a packed batch's events in seconds, for a TimeText. */
export function epochSeconds(bytes: Uint8Array, at: number, n: number): number {
  return Date.parse(utf8Text(bytes, at, n)) / 1000;
}
