import type pg from "pg";
import { expect } from "vitest";
import type { Event, Item, Scenario, User } from "./arbitraries/records.js";
import { contractWeight } from "./arbitraries/records.js";
import { aliasesOf } from "./aliases.js";
import { instantMicros, micros } from "./times.js";

/** JSON as PostgreSQL's jsonb gives it back: what JSON.stringify sent, parsed (-0 is 0, key order free). */
const asSent = (v: unknown) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/** A value with object keys sorted, so that two equal JSON values print the same. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) Object.defineProperty(out, k, { value: canonical((v as Record<string, unknown>)[k]), enumerable: true });
  return out;
}
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

export async function orgSeq(db: pg.Pool, orgId: string): Promise<number> {
  const { rows } = await db.query("SELECT seq FROM organisations WHERE id = $1", [orgId]);
  expect(rows, `organisation ${orgId}`).toHaveLength(1);
  return rows[0].seq as number;
}

/** Row counts of every table ingestion writes, for one organisation. */
export async function rowCounts(db: pg.Pool, org: number): Promise<Record<string, number>> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM items WHERE org = $1)::int AS items, (SELECT count(*) FROM users WHERE org = $1)::int AS users,
            (SELECT count(*) FROM events WHERE org = $1)::int AS events, (SELECT count(*) FROM identity_aliases WHERE org = $1)::int AS aliases,
            (SELECT count(*) FROM status_changes WHERE org = $1)::int AS status_changes`,
    [org],
  );
  return rows[0];
}

/** A stored time equals the sent one (to the microsecond; within one past six fraction digits). */
function sameInstant(storedMicros: string | null, sent: string | undefined): boolean {
  if (sent === undefined) return storedMicros === null;
  if (storedMicros === null) return false;
  const { micros: want, exact } = instantMicros(sent);
  const diff = BigInt(storedMicros) - want;
  return exact ? diff === 0n : diff >= -1n && diff <= 1n;
}

/** Each item is stored once, with its exact id and fields (the pool's ids are unique). */
export async function expectItemsStored(db: pg.Pool, org: number, sent: Item[]): Promise<void> {
  const { rows } = await db.query(`SELECT item_id, item_type, status, attributes, ${micros("created_at")} AS created_us FROM items WHERE org = $1`, [
    org,
  ]);
  expect(rows.length, "items stored for the organisation").toBe(sent.length);
  const byId = new Map(rows.map((r) => [r.item_id as string, r]));
  for (const i of sent) {
    const r = byId.get(i.item_id);
    expect(r, `item ${JSON.stringify(i.item_id)} stored`).toBeDefined();
    expect({ item_type: r.item_type, status: r.status, attributes: r.attributes }).toEqual({
      item_type: i.item_type,
      status: i.status,
      attributes: asSent(i.attributes ?? {}),
    });
    expect(sameInstant(r.created_us, i.created_at), `item created_at ${i.created_at} stored as ${r.created_us} µs`).toBe(true);
  }
}

export async function expectUsersStored(db: pg.Pool, org: number, sent: User[]): Promise<void> {
  const { rows } = await db.query(`SELECT user_id, status, attributes, ${micros("created_at")} AS created_us FROM users WHERE org = $1`, [org]);
  expect(rows.length, "users stored for the organisation").toBe(sent.length);
  const byId = new Map(rows.map((r) => [r.user_id as string, r]));
  for (const u of sent) {
    const r = byId.get(u.user_id);
    expect(r, `user ${JSON.stringify(u.user_id)} stored`).toBeDefined();
    expect({ status: r.status, attributes: r.attributes }).toEqual({ status: u.status, attributes: asSent(u.attributes ?? {}) });
    expect(sameInstant(r.created_us, u.created_at), `user created_at ${u.created_at} stored as ${r.created_us} µs`).toBe(true);
  }
}

interface EventRow {
  event_id: string;
  user_id: string;
  item_id: string | null;
  event_family: string;
  event_name: string;
  weight: number;
  previous_user_id: string | null;
  recommendation_id: string | null;
  context: unknown;
  at_us: string;
}

/** Whether a stored row is the sent event (its time: as sent, or the time of receipt when it had none). */
function matches(row: EventRow, e: Event, receipt: { from: bigint; to: bigint }): boolean {
  if (e.event_id !== undefined && row.event_id !== e.event_id.toLowerCase()) return false;
  const at = BigInt(row.at_us);
  const timeOk = e.timestamp === undefined ? at >= receipt.from && at <= receipt.to : sameInstant(row.at_us, e.timestamp);
  return (
    timeOk &&
    row.user_id === e.user_id &&
    row.item_id === (e.item_id ?? null) &&
    row.event_family === e.event_family &&
    row.event_name === e.event_name &&
    row.weight === contractWeight(e.event_name) &&
    row.previous_user_id === (e.previous_user_id ?? null) &&
    row.recommendation_id === (e.recommendation_id ?? null) &&
    same(row.context, asSent(e.context) ?? null)
  );
}

/**
 * Each distinct event is stored exactly once, as sent (a repeated event_id, in any letter case, once); events
 * sent without an id got one from the server. Returns the stored rows by sent position, for later checks.
 */
export async function expectEventsStored(db: pg.Pool, org: number, sent: Event[], receipt: { from: bigint; to: bigint }): Promise<EventRow[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT event_id::text, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context,
            ${micros("occurred_at")} AS at_us FROM events WHERE org = $1`,
    [org],
  );
  const distinct = new Set(sent.map((e, i) => e.event_id?.toLowerCase() ?? `#${i}`));
  const unmatched = new Set(rows);
  const missing: Event[] = [];
  const stored: EventRow[] = [];
  for (const e of sent) {
    const prior = e.event_id === undefined ? undefined : stored.find((r) => r.event_id === e.event_id!.toLowerCase());
    const row = prior ?? [...unmatched].find((r) => matches(r, e, receipt));
    if (!row) missing.push(e);
    else {
      unmatched.delete(row);
      stored.push(row);
    }
  }
  expect(missing, "sent events not found stored as sent").toEqual([]);
  expect([...unmatched], "stored events that were never sent, or stored twice").toEqual([]);
  expect(rows.length, "events stored, one per distinct event").toBe(distinct.size);
  return stored;
}

/** identify: the aliases the scenario's identify events settle (./aliases.ts), and no other. */
export async function expectAliasesStored(db: pg.Pool, org: number, s: Scenario): Promise<void> {
  const { rows } = await db.query("SELECT previous_user_id, user_id FROM identity_aliases WHERE org = $1", [org]);
  const stored = new Map(rows.map((r) => [r.previous_user_id as string, r.user_id as string]));
  expect(stored, "identity aliases (previous_user_id → user_id)").toEqual(aliasesOf(s));
}

/** Everything of a scenario is stored exactly once, as sent. */
export async function expectScenarioStored(db: pg.Pool, org: number, s: Scenario, receipt: { from: bigint; to: bigint }): Promise<void> {
  await expectItemsStored(db, org, s.items);
  await expectUsersStored(db, org, s.users);
  await expectEventsStored(db, org, s.events, receipt);
  await expectAliasesStored(db, org, s);
}
