import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { packBatch } from "../../../src/ingest/batchPack.js";
import type { BatchPayload, EventRow } from "../../../src/ingest/rows.js";
import { copyRows } from "../../../workers/writer/copyText.js";
import { directEventsCopy, reuseEventsCopy } from "../../../workers/writer/eventsCopy.js";
import { copyMessage } from "../../../workers/writer/pipelinedCopy.js";

const COPY = "COPY events FROM STDIN";

function event(over: Partial<Record<number, unknown>> = {}): EventRow {
  const row: EventRow = [7, randomUUID(), "user-1", "item-1", "engagement", "view", 1, null, null, null, "2026-11-24T06:00:00.000Z"];
  for (const [i, v] of Object.entries(over)) (row as unknown[])[Number(i)] = v;
  return row;
}

function batch(events: EventRow[]): BatchPayload {
  return { events, items: [], users: [] };
}

/** What the general path sends for the same events: copyRows over the unpacked rows. */
function expected(events: EventRow[]): Buffer {
  return copyMessage(COPY, copyRows(events));
}

describe("the direct COPY built from packed bytes", () => {
  it("sends byte for byte what copyRows writes for the unpacked events", () => {
    const events = [
      event(),
      event({ 0: 123_456, 2: "tab\there", 3: null, 6: -2, 8: "rec-1" }),
      event({ 2: "back\\slash\nnew\rline", 4: "conversion", 5: "purchase", 6: 5 }),
      event({ 1: randomUUID().toUpperCase(), 2: "ünïcødé 用户 🎉", 9: { page: "home", nested: { a: [1, 2.5, "x\ty"], b: null } } }),
      event({ 6: 0.5, 9: { quote: 'say "hi" \\ there' } }),
      event({ 6: 3_000_000_000, 9: 42 }),
      event({ 0: 2 ** 31 - 1, 6: -0, 9: true }),
      event({ 2: "x".repeat(70_000) }),
    ];
    const copy = directEventsCopy(packBatch(batch(events)), COPY)!;
    expect(copy.events).toBe(events.length);
    expect(copy.message.equals(expected(events))).toBe(true);
  });

  it("builds a batch of 10,000 events the same way, twice over the reused buffer", () => {
    const events = Array.from({ length: 10_000 }, (_, i) => event({ 2: `user-${i % 977}`, 3: i % 3 === 0 ? null : `item-${i}` }));
    const first = directEventsCopy(packBatch(batch(events)), COPY)!;
    expect(first.message.equals(expected(events))).toBe(true);
    reuseEventsCopy(first);
    const fewer = events.slice(0, 3);
    const second = directEventsCopy(packBatch(batch(fewer)), COPY)!;
    expect(second.message.buffer).toBe(first.message.buffer);
    expect(second.message.equals(expected(fewer))).toBe(true);
  });

  it("leaves batches with items, users or an identify alias to the general path", () => {
    const events = [event()];
    expect(directEventsCopy(packBatch({ events, items: [[7, "i", "t", "active", {}, null]], users: [] }), COPY)).toBeUndefined();
    expect(directEventsCopy(packBatch({ events, items: [], users: [[7, "u", "active", {}, "2026-11-24T06:00:00.000Z"]] }), COPY)).toBeUndefined();
    expect(directEventsCopy(packBatch(batch([event(), event({ 5: "identify", 7: "anon-1" })])), COPY)).toBeUndefined();
    expect(directEventsCopy(packBatch(batch([])), COPY)).toBeUndefined();
  });

  it("leaves a batch holding one event id twice (in either case) to the general path", () => {
    const id = randomUUID();
    expect(directEventsCopy(packBatch(batch([event({ 1: id }), event(), event({ 1: id.toUpperCase() })])), COPY)).toBeUndefined();
    // The same id in two organisations is two events.
    expect(directEventsCopy(packBatch(batch([event({ 1: id }), event({ 0: 8, 1: id })])), COPY)?.events).toBe(2);
  });

  it("finds repeats among many ids, and none where there are none", () => {
    const events = Array.from({ length: 5_000 }, () => event());
    expect(directEventsCopy(packBatch(batch(events)), COPY)?.events).toBe(5_000);
    events.push(event({ 1: events[4_321]![1] }));
    expect(directEventsCopy(packBatch(batch(events)), COPY)).toBeUndefined();
  });

  it("leaves a string context and an event id that is not a uuid to the general path", () => {
    expect(directEventsCopy(packBatch(batch([event({ 9: "not an object" })])), COPY)).toBeUndefined();
    expect(directEventsCopy(packBatch(batch([event({ 1: "0123456789abcdef0123456789abcdef0123" })])), COPY)).toBeUndefined();
    expect(directEventsCopy(packBatch(batch([event({ 1: "0123456g-89ab-cdef-0123-456789abcdef" })])), COPY)).toBeUndefined();
  });

  it("makes room for contexts whose JSON outgrows their packed bytes, on every row up to the last", () => {
    const events = Array.from({ length: 300 }, (_, i) => event({ 9: { n: Array.from({ length: i % 50 }, () => 1_000_000_000), page: "h\tome" } }));
    events.push(event({ 9: { n: Array.from({ length: 40_000 }, () => 100) } }));
    const copy = directEventsCopy(packBatch(batch(events)), COPY)!;
    expect(copy.message.equals(expected(events))).toBe(true);
  });
});
