import { MsgpackCursor } from "./msgpackCursor.js";
import { EVENT_COLUMN, EVENT_COLUMNS } from "./batchRows.js";

/**
 * The one reader of the events of a batch packed by packBatch, in place: the writer builds its COPY from it
 * (workers/writer/eventsCopy.ts), a shard applies the events from it (workers/recommender/shard.ts). A cursor
 * over the rows that makes nothing per row: after next(), the row's numbers are in `org` and `weight`, and every
 * other column is a span of `bytes`, (`at[col]`, `length[col]`), indexed by EVENT_COLUMN: a text column's
 * UTF-8 bytes, the context's packed value; length -1 for nil. Which columns must not be nil is the caller's to
 * say. Throws on bytes packBatch does not write (a row of another length, a number where text belongs, …).
 */
export class PackedEvents {
  /** The current row's position in the batch's events (-1 before the first). */
  position = -1;
  org = 0;
  weight = 0;
  readonly at = new Int32Array(EVENT_COLUMNS);
  readonly length = new Int32Array(EVENT_COLUMNS);
  /** Set by open(): whether the batch holds events only (else its items and users must be applied or written first, unpacked). */
  onlyEvents = true;
  private readonly c: MsgpackCursor;
  private count = 0;

  constructor(readonly bytes: Uint8Array) {
    this.c = new MsgpackCursor(bytes);
  }

  /** Where the cursor is in `bytes`: what is left to read is `bytes.length - offset`. */
  get offset(): number {
    return this.c.at;
  }

  /** Positions the cursor before the first event; returns the number of events. */
  open(): number {
    const c = this.c;
    c.at = 0;
    this.onlyEvents = true;
    let eventsAt = -1;
    for (let keys = c.mapLength(); keys > 0; keys--) {
      const key = c.string();
      const at = c.at;
      if (key === "events") {
        eventsAt = at;
        // packBatch puts the events last: only a batch packed otherwise is walked twice.
        if (keys > 1) c.skip();
      } else if (c.arrayLength() !== 0) {
        this.onlyEvents = false;
        c.at = at;
        c.skip();
      }
    }
    this.position = -1;
    if (eventsAt < 0) return (this.count = 0);
    c.at = eventsAt;
    return (this.count = c.arrayLength());
  }

  /** Reads the next row; false after the last. */
  next(): boolean {
    if (this.position + 1 >= this.count) return false;
    this.position++;
    const c = this.c;
    if (c.arrayLength() !== EVENT_COLUMNS) throw new Error("packed batch: an event row of another length");
    const { at, length } = this;
    for (let col = 0; col < EVENT_COLUMNS; col++) {
      switch (col) {
        case EVENT_COLUMN.org:
          this.org = number(c);
          break;
        case EVENT_COLUMN.weight:
          this.weight = number(c);
          break;
        case EVENT_COLUMN.context:
          at[col] = c.at;
          if (c.isNil()) {
            c.at++;
            length[col] = -1;
          } else {
            c.skip();
            length[col] = c.at - at[col]!;
          }
          break;
        default: {
          const n = c.stringLength();
          at[col] = c.at;
          length[col] = n;
          if (n > 0) c.at += n;
        }
      }
    }
    return true;
  }
}

function number(c: MsgpackCursor): number {
  const n = c.number();
  if (n === undefined) throw new Error("packed batch: a number of a kind packBatch does not write");
  return n;
}
