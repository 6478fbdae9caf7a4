import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { packBatch, unpackValue } from "../../src/wire/batchPack.js";
import { EVENT_COLUMN, EVENT_COLUMNS, type EventRow } from "../../src/wire/batchRows.js";
import { utf8Text } from "../../src/wire/msgpackCursor.js";
import { PackedEvents } from "../../src/wire/packedEvents.js";

const AT = "2026-11-24T06:00:00.000Z";
const ROWS: EventRow[] = [
  [7, "0b7d2c7e-9a31-4a7e-8f0e-5d3c2b1a0f9e", "user-1", "item-1", "engagement", "view", 1, null, null, null, AT],
  [
    123_456,
    "1b7d2c7e-9a31-4a7e-8f0e-5d3c2b1a0f9e",
    "ünïcødé 用户 🎉",
    null,
    "conversion",
    "purchase",
    5,
    null,
    "rec-1",
    { page: "home", n: [1, 2.5] },
    AT,
  ],
  [7, "2b7d2c7e-9a31-4a7e-8f0e-5d3c2b1a0f9e", "known", null, "system", "identify", 0, "anon-" + "x".repeat(300), null, 42, AT],
  [7, "3b7d2c7e-9a31-4a7e-8f0e-5d3c2b1a0f9e", "", "", "exposure", "impression", -2.5, null, null, null, "2026-11-24T06:00:01+02:00"],
];

/** Every row as the reader sees it: numbers as they are, text decoded from its span, the context unpacked, nil as null. */
function readAll(bytes: Uint8Array): unknown[][] {
  const r = new PackedEvents(bytes);
  r.open();
  const rows: unknown[][] = [];
  while (r.next()) {
    const row: unknown[] = [];
    for (let col = 0; col < EVENT_COLUMNS; col++) {
      const [at, n] = [r.at[col]!, r.length[col]!];
      if (col === EVENT_COLUMN.org) row.push(r.org);
      else if (col === EVENT_COLUMN.weight) row.push(r.weight);
      else if (n < 0) row.push(null);
      else if (col === EVENT_COLUMN.context) row.push(unpackValue(bytes.subarray(at, at + n)));
      else row.push(utf8Text(bytes, at, n));
    }
    expect(r.position).toBe(rows.length);
    rows.push(row);
  }
  return rows;
}

describe("the reader of a packed batch's events", () => {
  it("reads every column of every row as msgpackr unpacks it, text long and short, nil and context included", () => {
    expect(readAll(packBatch({ events: ROWS, items: [], users: [] }))).toEqual(ROWS);
  });

  it("says whether the batch holds events only, and reads the events of one that does not", () => {
    const r = new PackedEvents(packBatch({ events: ROWS, items: [[7, "i", "shoe", "active", {}, null]], users: [] }));
    expect(r.open()).toBe(ROWS.length);
    expect(r.onlyEvents).toBe(false);
    const only = new PackedEvents(packBatch({ events: ROWS, items: [], users: [] }));
    only.open();
    expect(only.onlyEvents).toBe(true);
  });

  it("reads a batch whose events come before its items and users, as another packer may write one", () => {
    const packr = new Packr({ useRecords: false });
    const bytes = packr.pack({ events: ROWS, items: [], users: [[7, "u", "active", {}, AT]] });
    const r = new PackedEvents(bytes);
    expect(r.open()).toBe(ROWS.length);
    expect(r.onlyEvents).toBe(false);
    expect(readAll(bytes)).toEqual(ROWS);
  });

  it("reads no event from a batch without any", () => {
    const r = new PackedEvents(packBatch({ events: [], items: [], users: [] }));
    expect(r.open()).toBe(0);
    expect(r.next()).toBe(false);
  });

  it("throws on a row of another length or a number where packBatch writes one and finds text, at that row", () => {
    const packr = new Packr({ useRecords: false });
    for (const odd of [[...ROWS[0]!, "extra"], ROWS[0]!.map((v, i) => (i === EVENT_COLUMN.weight ? "1" : v))]) {
      const r = new PackedEvents(packr.pack({ items: [], users: [], events: [ROWS[1], odd] }));
      r.open();
      expect(r.next()).toBe(true);
      expect(() => r.next()).toThrow(/packed batch/);
      expect(r.position).toBe(1);
    }
  });
});
