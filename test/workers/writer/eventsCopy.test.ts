import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packBatch } from "../../../src/wire/batchPack.js";
import type { BatchPayload, EventRow } from "../../../src/wire/batchRows.js";
import { copyRows } from "../../../workers/writer/copyText.js";
import { directEventsCopy, reuseEventsCopy } from "../../../workers/writer/eventsCopy.js";
import { postgresMicros } from "../../../workers/writer/isoTime.js";
import { copyMessage, PipelinedCopy } from "../../../workers/writer/pipelinedCopy.js";
import { startServer, type TestServer } from "../../helpers/server.js";

const COLUMNS = "org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at";
const BINARY = (table: string) => `COPY ${table} (${COLUMNS}) FROM STDIN (FORMAT binary)`;
const NOW = "2026-11-24T06:00:00.000Z";

let server: TestServer;
let db: pg.Client;
beforeAll(async () => {
  server = await startServer();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await server?.cleanup();
});

function event(over: Partial<Record<number, unknown>> = {}): EventRow {
  const row: EventRow = [7, randomUUID(), "user-1", "item-1", "engagement", "view", 1, null, null, null, NOW];
  for (const [i, v] of Object.entries(over)) (row as unknown[])[Number(i)] = v;
  return row;
}

const batch = (events: EventRow[]): BatchPayload => ({ events, items: [], users: [] });
const binary = (events: EventRow[], table = "t") => directEventsCopy(packBatch(batch(events)), BINARY(table));

/** The rows PostgreSQL stores from the binary COPY, and from the text COPY the general path sends, side by side. */
async function storedBothWays(events: EventRow[]): Promise<{ binary: unknown[]; text: unknown[] }> {
  await db.query("DROP TABLE IF EXISTS via_binary, via_text");
  await db.query("CREATE TEMP TABLE via_binary (LIKE events INCLUDING DEFAULTS); CREATE TEMP TABLE via_text (LIKE events INCLUDING DEFAULTS)");
  const copy = binary(events, "via_binary");
  expect(copy?.events).toBe(events.length);
  await new PipelinedCopy(copy!.message).run(db);
  await new PipelinedCopy(copyMessage(`COPY via_text (${COLUMNS}) FROM STDIN`, copyRows(events))).run(db);
  // Times as text: node-postgres would read them into Dates, which keep milliseconds only.
  const read = async (table: string) => (await db.query(`SELECT ${COLUMNS}, occurred_at::text AS at FROM ${table} ORDER BY event_id`)).rows;
  return { binary: await read("via_binary"), text: await read("via_text") };
}

describe("the direct COPY built from packed bytes (binary format)", () => {
  it("stores exactly what the text COPY of the unpacked events stores", async () => {
    const events = [
      event(),
      event({ 0: 123_456, 2: "tab\there", 3: null, 6: -2, 8: "rec-1" }),
      event({ 2: "back\\slash\nnew\rline", 4: "conversion", 5: "purchase", 6: 5 }),
      event({ 1: randomUUID().toUpperCase(), 2: "ünïcødé 用户 🎉", 9: { page: "home", nested: { a: [1, 2.5, "x\ty"], b: null } } }),
      event({ 6: 0, 9: { quote: 'say "hi" \\ there', big: 1e21, small: -3e-7 } }),
      event({ 9: [1, "two", { three: 3 }] }),
      event({ 9: 42 }),
      event({ 9: true }),
      event({ 2: "x".repeat(70_000) }),
    ];
    const stored = await storedBothWays(events);
    expect(stored.binary).toHaveLength(events.length);
    expect(stored.binary).toEqual(stored.text);
  });

  it("converts every timestamp spelling the schema accepts as PostgreSQL parses it", async () => {
    const times = [
      "2026-11-24T06:00:00Z",
      "2026-11-24T06:00:00.1Z",
      "2026-11-24T06:00:00.12Z",
      "2026-11-24T06:00:00.123Z",
      "2026-11-24T06:00:00.1234Z",
      "2026-11-24T06:00:00.12345Z",
      "2026-11-24T06:00:00.123456Z",
      "2024-05-01T10:00:00+02:00",
      "2024-05-01T10:00:00.5-05:30",
      "2024-02-29T23:59:59.999999+14:00",
      "1999-12-31T23:59:59-00:00",
      "0100-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999Z",
      "1970-01-01T00:00:00Z",
    ];
    const stored = await storedBothWays(times.map((t) => event({ 10: t })));
    expect(stored.binary).toEqual(stored.text);
  });

  it("leaves times it does not convert to PostgreSQL's own parsing (the general path)", () => {
    const spelled = (t: string) => Buffer.from(t);
    for (const t of [
      "2026-11-24T06:00:00.1234567Z",
      "2023-02-29T00:00:00Z",
      "0099-01-01T00:00:00Z",
      "2026-11-24T06:00Z",
      "2026-11-24 06:00:00Z",
      "2026-11-24T06:00:00+0200",
      "2026-1x-24T06:00:00Z",
    ]) {
      expect(postgresMicros(spelled(t), 0, t.length), t).toBeUndefined();
      expect(binary([event({ 10: t })]), t).toBeUndefined();
    }
    expect(postgresMicros(spelled("2000-01-01T00:00:00.000001Z"), 0, 27)).toBe(1n);
  });

  it("builds a batch of 10,000 events over the reused buffer, the second build equal to the first", async () => {
    const events = Array.from({ length: 10_000 }, (_, i) => event({ 2: `user-${i % 977}`, 3: i % 3 === 0 ? null : `item-${i}` }));
    const first = binary(events)!;
    const bytes = Buffer.from(first.message);
    reuseEventsCopy(first);
    const second = binary(events)!;
    expect(second.message.buffer).toBe(first.message.buffer);
    expect(second.message.equals(bytes)).toBe(true);
    const stored = await storedBothWays(events.slice(0, 2_000));
    expect(stored.binary).toEqual(stored.text);
  });

  it("makes room for contexts whose JSON outgrows their packed bytes, on every row up to the last", async () => {
    const events = Array.from({ length: 300 }, (_, i) => event({ 9: { n: Array.from({ length: i % 50 }, () => 100), page: "h\\tome" } }));
    events.push(event({ 9: { n: Array.from({ length: 40_000 }, () => 100) } }));
    const stored = await storedBothWays(events);
    expect(stored.binary).toEqual(stored.text);
  });

  it("leaves batches with items, users or an identify alias to the general path", () => {
    const events = [event()];
    expect(directEventsCopy(packBatch({ events, items: [[7, "i", "t", "active", {}, null]], users: [] }), BINARY("t"))).toBeUndefined();
    expect(directEventsCopy(packBatch({ events, items: [], users: [[7, "u", "active", {}, NOW]] }), BINARY("t"))).toBeUndefined();
    expect(binary([event(), event({ 5: "identify", 7: "anon-1" })])).toBeUndefined();
    expect(binary([])).toBeUndefined();
  });

  it("leaves a batch holding one event id twice (in either case) to the general path", () => {
    const id = randomUUID();
    expect(binary([event({ 1: id }), event(), event({ 1: id.toUpperCase() })])).toBeUndefined();
    // The same id in two organisations is two events.
    expect(binary([event({ 1: id }), event({ 0: 8, 1: id })])?.events).toBe(2);
  });

  it("finds repeats among many ids, and none where there are none", () => {
    const events = Array.from({ length: 5_000 }, () => event());
    expect(binary(events)?.events).toBe(5_000);
    events.push(event({ 1: events[4_321]![1] }));
    expect(binary(events)).toBeUndefined();
  });

  it("leaves a string context and an event id that is not a uuid to the general path", () => {
    expect(binary([event({ 9: "not an object" })])).toBeUndefined();
    expect(binary([event({ 1: "0123456789abcdef0123456789abcdef0123" })])).toBeUndefined();
    expect(binary([event({ 1: "0123456g-89ab-cdef-0123-456789abcdef" })])).toBeUndefined();
  });
});
