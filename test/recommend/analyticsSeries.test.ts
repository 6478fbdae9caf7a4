import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyRetention } from "../../src/db/retention.js";
import { StrategyReportSchema } from "../../src/recommend/analytics.js";
import { recommendationId } from "../../src/recommend/recommendationId.js";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** GET /v1/analytics/strategies with `granularity`: series per bucket and the organisation's totals (README Analytics). */
const HOUR = 3_600_000;
const DAY = 86_400_000;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const seqOf = async (org: Org) => (await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;

/** An event of `user` received at `at` (its week's partition made first), naming `rid` when given. */
async function received(seq: number, at: Date, family: string, rid?: string, weight = 1, user = "u"): Promise<void> {
  await server.db().query("SELECT ensure_events_partition($1)", [at]);
  await server.db().query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, recommendation_id, occurred_at, received_at)
     VALUES ($1, gen_random_uuid(), $6, 'i', $2, 'e', $3, $4, $5, $5)`,
    [seq, family, weight, rid ?? null, at, user],
  );
}

/** A recommendation served at `at` (its v7 id of that millisecond, as the service draws them), then clicked or converted `after` ms later. */
async function served(
  seq: number,
  at: Date,
  o: { strategy?: string; scenario?: string; clicked?: boolean; converted?: boolean; after?: number; weight?: number; user?: string } = {},
): Promise<string> {
  const rid = recommendationId(at.getTime());
  await server
    .db()
    .query(
      `INSERT INTO served_recommendations (org, recommendation_id, strategy, mode, items, served_at, scenario, user_id) VALUES ($1, $2, $3, 'personalized', '[]', $4, $5, $6)`,
      [seq, rid, o.strategy ?? "personalized", at, o.scenario ?? "default", o.user ?? "u"],
    );
  const later = new Date(at.getTime() + (o.after ?? 60_000));
  if (o.clicked) await received(seq, later, "engagement", rid, o.weight, o.user);
  if (o.converted) await received(seq, later, "conversion", rid, 1, o.user);
  return rid;
}

async function report(org: Org, q: Record<string, string>) {
  const r = await call(server.url, "GET", `/v1/analytics/strategies?${new URLSearchParams(q).toString()}`, { token: org.token });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return StrategyReportSchema.parse(r.body.data);
}

/** Midnight UTC `days` days ago. */
const daysAgo = (days: number) => new Date(Math.floor(Date.now() / DAY) * DAY - days * DAY);
const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const zeros = (n: number) => new Array<number>(n).fill(0);

describe("analytics over time", () => {
  it("counts each served recommendation in the UTC day it was served in, with its later click or conversion, and empty days as zeros", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const d0 = daysAgo(10);
    await served(seq, at(d0, 7 * HOUR), { clicked: true });
    await served(seq, at(d0, 8 * HOUR), { converted: true });
    await served(seq, at(d0, 2 * DAY + HOUR), { strategy: "popular", clicked: true, after: 30 * HOUR }); // clicked the next day
    await served(seq, at(d0, 5 * DAY + 2 * HOUR));
    await served(seq, at(d0, HOUR)); // before `from`, in its first day
    await served(seq, at(d0, 5 * DAY + 4 * HOUR)); // at `to`: the end is exclusive
    await served(seq, at(d0, 2 * DAY + 2 * HOUR), { clicked: true, weight: 0 }); // an engagement of no weight is no click

    const r = await report(org, { from: at(d0, 6 * HOUR).toISOString(), to: at(d0, 5 * DAY + 4 * HOUR).toISOString(), granularity: "day" });
    expect(r.granularity).toBe("day");
    expect(r.buckets).toEqual([0, 1, 2, 3, 4, 5].map((d) => at(d0, d * DAY).toISOString()));
    const personalized = r.series!.strategies.find((s) => s.strategy === "personalized")!;
    const popular = r.series!.strategies.find((s) => s.strategy === "popular")!;
    expect(personalized).toEqual({
      strategy: "personalized",
      served: [2, 0, 1, 0, 0, 1],
      clicks: [1, 0, 0, 0, 0, 0],
      conversions: [1, 0, 0, 0, 0, 0],
    });
    expect(popular).toEqual({ strategy: "popular", served: [0, 0, 1, 0, 0, 0], clicks: [0, 0, 1, 0, 0, 0], conversions: zeros(6) });
    expect(r.series!.strategies.map((s) => s.strategy)).toEqual(["personalized", "popular"]);
    expect(r.series!.scenarios).toEqual([
      { scenario: "default", served: [2, 0, 2, 0, 0, 1], clicks: [1, 0, 1, 0, 0, 0], conversions: [1, 0, 0, 0, 0, 0] },
    ]);
    expect(r.series!.other_scenarios).toBeNull();
    // The period's totals are the series summed, as they are without granularity.
    expect(r.strategies).toEqual((await report(org, { from: r.from, to: r.to })).strategies);
    expect(r.strategies[0]).toMatchObject({ strategy: "personalized", served: 4, clicks: 1, conversions: 1 });
  });

  it("answers hourly buckets for a range under 3 days, the first the hour holding `from`", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const h0 = at(daysAgo(2), 5 * HOUR);
    await served(seq, at(h0, 30 * 60_000), { scenario: "home", clicked: true });
    await served(seq, at(h0, 3 * HOUR + 10 * 60_000), { scenario: "home" });
    const r = await report(org, { from: at(h0, 20 * 60_000).toISOString(), to: at(h0, 5 * HOUR).toISOString(), granularity: "hour" });
    expect(r.buckets).toEqual([0, 1, 2, 3, 4].map((h) => at(h0, h * HOUR).toISOString()));
    expect(r.series!.scenarios).toEqual([{ scenario: "home", served: [1, 0, 0, 1, 0], clicks: [1, 0, 0, 0, 0], conversions: zeros(5) }]);
    const hourAfterMidnightEdge = await report(org, { from: h0.toISOString(), to: at(h0, 3 * DAY - 1).toISOString(), granularity: "hour" });
    expect(hourAfterMidnightEdge.buckets).toHaveLength(72);
    const daily = await report(org, { from: h0.toISOString(), to: at(h0, 5 * HOUR).toISOString(), granularity: "day" });
    expect(daily.buckets).toEqual([daysAgo(2).toISOString()]);
    expect(daily.series!.scenarios[0]!.served).toEqual([2]);
  });

  it("answers exactly the totals without granularity, and only the series of the scenario asked for", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const d0 = daysAgo(3);
    await served(seq, at(d0, HOUR), { scenario: "home" });
    await served(seq, at(d0, DAY + HOUR), { scenario: "cart", clicked: true });
    const plain = await call(server.url, "GET", `/v1/analytics/strategies?from=${d0.toISOString()}`, { token: org.token });
    expect(Object.keys(plain.body.data).sort()).toEqual(["from", "scenarios", "strategies", "to"]);
    const cart = await report(org, { from: d0.toISOString(), to: at(d0, 2 * DAY).toISOString(), granularity: "day", scenario: "cart" });
    expect(cart.series!.scenarios).toEqual([{ scenario: "cart", served: [0, 1], clicks: [0, 1], conversions: [0, 0] }]);
    expect(cart.series!.strategies).toEqual([{ strategy: "personalized", served: [0, 1], clicks: [0, 1], conversions: [0, 0] }]);
  });

  it("answers 400 naming granularity for an unknown one, hour over 3 days or more, and day over more than 400 days", async () => {
    const org = await newOrg(server.url);
    const d0 = daysAgo(1).getTime();
    const ask = (q: Record<string, string>) =>
      call(server.url, "GET", `/v1/analytics/strategies?${new URLSearchParams(q).toString()}`, { token: org.token });
    const iso = (ms: number) => new Date(ms).toISOString();
    const refused: Array<Record<string, string>> = [
      { granularity: "week" },
      { granularity: "hour" }, // the default range is 30 days
      { granularity: "hour", from: iso(d0 - 3 * DAY), to: iso(d0) },
      { granularity: "day", from: iso(d0 - 400 * DAY - 1), to: iso(d0) },
    ];
    for (const q of refused) {
      const r = await ask(q);
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message).toContain("granularity");
    }
    const reversed = await ask({ granularity: "day", from: iso(d0), to: iso(d0 - DAY) });
    expect(reversed.status).toBe(400);
    expect(reversed.body.message).toContain("from");
    const longest = await ask({ granularity: "day", from: iso(d0 - 400 * DAY + HOUR), to: iso(d0 + HOUR) });
    expect(longest.status).toBe(200);
    expect(longest.body.data.buckets).toHaveLength(401);
    expect(longest.body.data.totals.events.every((f: { counts: number[] }) => f.counts.length === 401)).toBe(true);
  });

  it("gives the 20 most served scenarios their own series and sums the others in other_scenarios", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const d0 = daysAgo(4);
    const rows: string[] = [];
    // Scenario s-k is served k times (s-01 … s-23), all on the first day but s-01's, on the second.
    for (let k = 1; k <= 23; k++) for (let i = 0; i < k; i++) rows.push(`s-${String(k).padStart(2, "0")}`);
    await server.db().query(
      `INSERT INTO served_recommendations (org, recommendation_id, strategy, mode, items, served_at, scenario)
       SELECT $1, r.id::uuid, 'popular', 'popular', '[]', r.at, r.scenario FROM unnest($2::text[], $3::timestamptz[], $4::text[]) AS r(id, at, scenario)`,
      [
        seq,
        rows.map((_, i) => recommendationId(d0.getTime() + HOUR + i)),
        rows.map((s, i) => new Date(d0.getTime() + (s === "s-01" ? DAY : 0) + HOUR + i)),
        rows,
      ],
    );
    const r = await report(org, { from: d0.toISOString(), to: at(d0, 2 * DAY).toISOString(), granularity: "day" });
    expect(r.series!.scenarios.map((s) => s.scenario)).toEqual(Array.from({ length: 20 }, (_, i) => `s-${String(23 - i).padStart(2, "0")}`));
    expect(r.series!.scenarios[0]!.served).toEqual([23, 0]);
    expect(r.series!.other_scenarios).toEqual({ served: [2 + 3, 1], clicks: [0, 0], conversions: [0, 0] });
    expect(r.scenarios).toHaveLength(23); // the period's table keeps every scenario
  });

  it("reports the organisation's items, active items, users, events per bucket by family and ingestion rate", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    await upsertItems(server.url, org, [
      { item_id: "a" },
      { item_id: "b" },
      { item_id: "c", status: "inactive" },
      { item_id: "d", status: "deleted" },
    ]);
    const users = await call(server.url, "POST", "/v1/users/upsert", {
      apiKey: org.sk,
      json: [
        { user_id: "x", status: "active", created_at: "2025-01-01T00:00:00Z" },
        { user_id: "y", status: "active", created_at: "2025-01-01T00:00:00Z" },
      ],
    });
    expect(users.status, JSON.stringify(users.body)).toBe(202);
    const h0 = at(daysAgo(1), 10 * HOUR);
    for (const [ms, family] of [
      [0, "engagement"],
      [10 * 60_000, "engagement"],
      [HOUR, "conversion"],
      [3 * HOUR, "exposure"],
      [3 * HOUR + 1, "system"],
      [4 * HOUR, "engagement"], // at `to`
    ] as const)
      await received(seq, at(h0, ms), family);
    const now = Date.now();
    for (let i = 0; i < 3; i++) await received(seq, new Date(now - 30_000), "engagement");
    for (let i = 0; i < 33; i++) await received(seq, new Date(now - 30 * 60_000), "exposure");

    const { value: r } = await eventually(
      () => report(org, { from: h0.toISOString(), to: at(h0, 4 * HOUR).toISOString(), granularity: "hour" }),
      (v) => v.totals!.items === 3 && v.totals!.users === 2,
    );
    expect(r.totals).toEqual({
      items: 3,
      items_active: 2,
      users: 2,
      events_total: 5,
      events: [
        { family: "exposure", counts: [0, 0, 0, 1] },
        { family: "engagement", counts: [2, 0, 0, 0] },
        { family: "conversion", counts: [0, 1, 0, 0] },
        { family: "system", counts: [0, 0, 0, 1] },
      ],
      ingestion: { last_minute_per_s: 0.05, last_hour_per_s: 0.01 },
    });
    expect(r.series).toEqual({ strategies: [], scenarios: [], other_scenarios: null });
  });

  it("never counts another organisation's served recommendations or events", async () => {
    const [mine, theirs] = [await newOrg(server.url), await newOrg(server.url)];
    const [a, b] = [await seqOf(mine), await seqOf(theirs)];
    const d0 = daysAgo(5);
    await served(a, at(d0, HOUR), { clicked: true });
    await served(b, at(d0, 2 * HOUR), { clicked: true, converted: true });
    await served(b, at(d0, 3 * HOUR), { scenario: "home" });
    await received(b, at(d0, 4 * HOUR), "exposure");
    const q = { from: d0.toISOString(), to: at(d0, DAY).toISOString(), granularity: "day" };
    const r = await report(mine, q);
    expect(r.series!.scenarios).toEqual([{ scenario: "default", served: [1], clicks: [1], conversions: [0] }]);
    expect(r.totals!.events_total).toBe(1);
    expect(r.totals!.events.find((f) => f.family === "exposure")!.counts).toEqual([0]);
    expect((await report(theirs, q)).totals!.events_total).toBe(3); // its click, conversion and exposure
  });

  it("counts a click that came after its day was counted, in the day the recommendation was served", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const d0 = daysAgo(6);
    const rid = await served(seq, at(d0, 3 * HOUR));
    await served(seq, at(d0, DAY + 3 * HOUR), { clicked: true });
    const q = { from: d0.toISOString(), to: at(d0, 2 * DAY).toISOString(), granularity: "day" };
    expect((await report(org, q)).series!.strategies[0]).toMatchObject({ served: [1, 1], clicks: [0, 1], conversions: [0, 0] });
    // Days ago it was served, now it is clicked and bought: received now.
    await received(seq, new Date(), "engagement", rid);
    await received(seq, new Date(), "conversion", rid);
    // Ids that are no served recommendation's, as a client may send them, change nothing.
    for (const other of ["not-an-id", "ffffffff-ffff-7fff-bfff-ffffffffffff", "00000000-0000-7000-8000-000000000000", ""])
      await received(seq, new Date(), "engagement", other);
    const again = await report(org, q);
    expect(again.series!.strategies[0]).toMatchObject({ served: [1, 1], clicks: [1, 1], conversions: [1, 0] });
    expect(again.strategies[0]).toMatchObject({ served: 2, clicks: 2, conversions: 1 });
    expect(again.totals!.events_total).toBe(1); // the new events were received after the period
  });

  it("stops counting an erased user's served recommendations and events, in days counted before the erasure", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const d0 = daysAgo(7);
    await served(seq, at(d0, HOUR), { user: "gone", clicked: true });
    await served(seq, at(d0, 2 * HOUR), { user: "stays", clicked: true });
    await received(seq, at(d0, 3 * HOUR), "exposure", undefined, 1, "gone");
    const q = { from: d0.toISOString(), to: at(d0, DAY).toISOString(), granularity: "day" };
    const before = await report(org, q);
    expect(before.series!.strategies[0]).toMatchObject({ served: [2], clicks: [2] });
    expect(before.totals!.events_total).toBe(3);

    const r = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["gone"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    await eventually(
      () => call(server.url, "GET", `/v1/users/erase/${r.body.data.erasure_id as string}`, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      30_000,
    );
    const after = await report(org, q);
    expect(after.series!.strategies[0]).toMatchObject({ served: [1], clicks: [1] });
    expect(after.strategies[0]).toMatchObject({ served: 1, clicks: 1 });
    expect(after.totals!.events_total).toBe(1);
  });

  it("stops counting the events an organisation's own shorter retention deleted, in days counted before", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const old = daysAgo(26);
    await served(seq, at(old, HOUR), { clicked: true });
    await received(seq, at(old, 2 * HOUR), "exposure");
    const q = { from: old.toISOString(), to: at(old, DAY).toISOString(), granularity: "day" };
    expect((await report(org, q)).totals!.events_total).toBe(2);
    await server.db().query("UPDATE organisations SET events_retention_days = 14 WHERE seq = $1", [seq]);
    const report1 = await applyRetention(() => new pg.Client({ connectionString: server.databaseUrl }), { retentionDays: 400, dedupDays: 7 });
    expect(report1!.purged.filter((p) => p.org === seq).map((p) => p.rows)).toContain(2);
    const after = await report(org, q);
    expect(after.totals!.events_total).toBe(0);
    expect(after.series!.strategies[0]).toMatchObject({ served: [1], clicks: [0] });
  });

  it("counts what is still stored once retention drops a week of events: that week's events go, the rest is unchanged", async () => {
    const org = await newOrg(server.url);
    const seq = await seqOf(org);
    const old = daysAgo(25);
    const recent = daysAgo(1);
    await served(seq, at(old, HOUR), { clicked: true });
    await received(seq, at(old, 2 * HOUR), "exposure");
    await served(seq, at(recent, HOUR), { clicked: true });
    await received(seq, at(recent, 2 * HOUR), "exposure");
    const q = { from: daysAgo(29).toISOString(), to: at(recent, DAY).toISOString(), granularity: "day" };
    const before = await report(org, q);
    const [i, j] = [before.buckets!.indexOf(old.toISOString()), before.buckets!.indexOf(recent.toISOString())];
    expect(before.totals!.events_total).toBe(4);
    expect(before.series!.strategies[0]!.clicks[i]).toBe(1);

    const dropped = await applyRetention(() => new pg.Client({ connectionString: server.databaseUrl }), { retentionDays: 14, dedupDays: 7 });
    expect(dropped!.dropped.length).toBeGreaterThan(0);

    const after = await report(org, q);
    expect(after.buckets).toEqual(before.buckets);
    expect(after.totals!.events_total).toBe(2);
    expect(after.totals!.events.find((f) => f.family === "exposure")!.counts[i]).toBe(0);
    expect(after.totals!.events.find((f) => f.family === "exposure")!.counts[j]).toBe(1);
    // The served log outlives the events: a recommendation served in a dropped week still counts, its click no more.
    const s = after.series!.strategies[0]!;
    expect([s.served[i], s.clicks[i], s.served[j], s.clicks[j]]).toEqual([1, 0, 1, 1]);
  });
});
