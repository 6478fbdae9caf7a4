import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { eventually, recommend, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Retention of events (docs/operations.md), on a server whose retention task runs every second. */
const RETENTION_DAYS = 30;
let server: TestServer;

async function start(reuse?: TestServer): Promise<TestServer> {
  return startServer({
    env: { EVENTS_RETENTION_DAYS: String(RETENTION_DAYS), EVENTS_RETENTION_CHECK_S: "1" },
    ...(reuse ? { reuse } : {}),
  });
}

beforeAll(async () => {
  server = await start();
});
afterAll(async () => {
  await server?.cleanup();
});

const seqOf = async (org: Org) => (await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
const stored = async (seq: number, user: string) =>
  (await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE org = $1 AND user_id = $2", [seq, user])).rows[0]!.n;

/**
 * Moves organisations' stored events (and their ids) `days` back in arrival, into that week's partition, in one
 * transaction: the retention task sees the partition only with its rows.
 */
async function arrivedDaysAgo(seqs: number[], days: number): Promise<string> {
  const c = await server.db().connect();
  try {
    await c.query("BEGIN");
    const { rows } = await c.query<{ p: string }>("SELECT ensure_events_partition(now() - $1 * interval '1 day') AS p", [days]);
    await c.query("UPDATE events SET received_at = now() - $2 * interval '1 day' WHERE org = ANY($1)", [seqs, days]);
    await c.query("UPDATE event_ids SET day = events_day(now() - $2 * interval '1 day') WHERE org = ANY($1)", [seqs, days]);
    // The task prunes `event_ids` once a day; these ids are older than the day it last pruned up to.
    await c.query("DELETE FROM settings WHERE name = 'event_ids_pruned_before'");
    await c.query("COMMIT");
    return rows[0]!.p;
  } finally {
    c.release();
  }
}

async function ingest(org: Org, events: unknown[]): Promise<void> {
  const r = await call(server.url, "POST", "/v1/events/ingest", { json: events, apiKey: org.pk });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
}

async function recentlyViewed(org: Org, user: string): Promise<{ mode: string; items: string[] }> {
  const r = await recommend(server.url, org, { strategy: "recently-viewed", user_id: user, limit: 10 });
  expect(r.status).toBe(200);
  return { mode: r.body.data.mode, items: r.body.data.recommended_items };
}

describe("events retention", () => {
  it("keeps the current week's partition and the next two ready", async () => {
    const { rows } = await server
      .db()
      .query<{ p: string | null }>(
        "SELECT to_regclass('events_w' || to_char(events_week(now() + k * interval '7 days') AT TIME ZONE 'UTC', 'YYYYMMDD'))::text AS p FROM generate_series(0, 2) k",
      );
    expect(rows.every((r) => r.p !== null)).toBe(true);
  });

  it("creates and drops partitions while a long reader holds events, and ingestion goes on meanwhile", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    await ingest(org, [viewEvent("reader-user", "item")]);
    const expired = await arrivedDaysAgo([seq], RETENTION_DAYS + 10);
    const reader = await server.db().connect();
    try {
      // As a recommender thread loading at start: a long transaction that has read `events`.
      await reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      await reader.query("SELECT count(*) FROM events");
      const creator = await server.db().connect();
      try {
        await creator.query("SET lock_timeout = '5s'");
        const { rows } = await creator.query<{ p: string }>("SELECT ensure_events_partition(now() + interval '35 days') AS p");
        expect(rows[0]!.p).toMatch(/^events_w\d{8}$/);
      } finally {
        creator.release();
      }
      // The retention task's concurrent detach of the expired week waits for the reader; the writers do not.
      await eventually(
        async () =>
          (await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'ALTER TABLE events DETACH%'"))
            .rows[0]!.n,
        (n) => n > 0,
        10_000,
      );
      await ingest(org, [viewEvent("during-detach", "item")]);
      expect(await stored(seq, "during-detach")).toBe(1);
    } finally {
      await reader.query("COMMIT");
      reader.release();
    }
    await eventually(
      async () => (await server.db().query<{ r: string | null }>("SELECT to_regclass($1)::text AS r", [expired])).rows[0]!.r,
      (r) => r === null,
      10_000,
    );
  }, 60_000);

  it("drops a week's partition once all of it arrived longer ago than EVENTS_RETENTION_DAYS; a restart then answers without its events", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    await upsertItems(server.url, org, [{ item_id: "old-item" }, { item_id: "new-item" }]);
    await ingest(org, [viewEvent("old-visitor", "old-item")]);
    const partition = await arrivedDaysAgo([seq], RETENTION_DAYS + 8);
    await ingest(org, [viewEvent("new-visitor", "new-item")]);
    await eventually(
      async () => (await server.db().query<{ r: string | null }>("SELECT to_regclass($1)::text AS r", [partition])).rows[0]!.r,
      (r) => r === null,
      10_000,
    );
    expect(await stored(seq, "old-visitor")).toBe(0);
    expect(await stored(seq, "new-visitor")).toBe(1);
    // The running process learnt the expired event before it expired; a restart reads only what is stored.
    expect(
      (
        await eventually(
          () => recentlyViewed(org, "old-visitor"),
          (r) => r.items.length > 0,
          5000,
        )
      ).value.items,
    ).toEqual(["old-item"]);
    expect(await server.stop()).toBe(0);
    server = await start(server);
    expect((await recentlyViewed(org, "old-visitor")).mode).toBe("fallback");
    expect((await recentlyViewed(org, "new-visitor")).items).toEqual(["new-item"]);
  }, 60_000);

  it("deletes an organisation's events from partitions past its own shorter retention, and no other organisation's", async () => {
    const short = await newOrg(server.url);
    const other = await newOrg(server.url);
    const set = await call(server.url, "PATCH", "/v1/settings/retention", { token: short.token, json: { events_retention_days: 10 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toEqual({ events_retention_days: 10, service_retention_days: RETENTION_DAYS, effective_days: 10 });
    const [shortSeq, otherSeq] = [await seqOf(short), await seqOf(other)];
    await ingest(short, [viewEvent("s-user", "s-item"), viewEvent("s-user", "s-item-2")]);
    await ingest(other, [viewEvent("o-user", "o-item")]);
    const partition = await arrivedDaysAgo([shortSeq, otherSeq], 18);
    const purges = async () => (await server.db().query("SELECT partition FROM events_org_purges WHERE org = $1", [shortSeq])).rows;
    expect((await eventually(purges, (rows) => rows.length > 0, 10_000)).value).toEqual([{ partition }]);
    expect(await stored(shortSeq, "s-user")).toBe(0);
    expect(await stored(otherSeq, "o-user")).toBe(1);
    const audit = await call(server.url, "GET", "/v1/audit-log", { token: short.token });
    expect(audit.body.data.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toContainEqual([
      "retention.changed",
      "events_retention_days=10",
    ]);
  }, 60_000);

  it("forgets event ids past the dedup window: an event resent after it is stored again", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const e = viewEvent("late-resender", "item");
    await ingest(org, [e]);
    await arrivedDaysAgo([seq], 9);
    await eventually(
      async () => (await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM event_ids WHERE org = $1", [seq])).rows[0]!.n,
      (n) => n === 0,
      10_000,
    );
    await ingest(org, [e]);
    expect(await stored(seq, "late-resender")).toBe(2);
  }, 60_000);
});
