import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StrategyReportSchema } from "../../src/recommend/analytics.js";
import { precountDays } from "../../src/recommend/analyticsPrecount.js";
import { SETTLED_MS } from "../../src/recommend/analyticsCache.js";
import { recommendationId } from "../../src/recommend/recommendationId.js";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** The days analytics keep, counted ahead of the reads (src/recommend/analyticsPrecount.ts; README, Analytics). */
const HOUR = 3_600_000;
const DAY = 86_400_000;
let server: TestServer;

beforeAll(async () => {
  // The server's own rounds are off: the tests run each round themselves.
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000", ANALYTICS_PRECOUNT_S: "0" } });
});
afterAll(async () => {
  await server?.cleanup();
});

// Days counted from the last one that can be over: a day is over SETTLED_MS after midnight (late events still
// count), so run between midnight and then, "today" is still the day before.
const daysAgo = (days: number) => new Date(Math.floor((Date.now() - SETTLED_MS) / DAY) * DAY - days * DAY);
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** A shop created at noon `age` days ago (as a year-old shop is), with one served and clicked recommendation on each of `busy` days. */
async function oldShop(age: number, busy: number[]): Promise<{ org: Org; seq: number }> {
  const org = await newOrg(server.url);
  const db = server.db();
  const { rows } = await db.query<{ seq: number }>("UPDATE organisations SET created_at = $2 WHERE id = $1 RETURNING seq", [
    org.orgId,
    new Date(daysAgo(age).getTime() + 12 * HOUR),
  ]);
  const seq = rows[0]!.seq;
  for (const d of busy) {
    const servedAt = new Date(daysAgo(d).getTime() + 9 * HOUR);
    const rid = recommendationId(servedAt.getTime());
    await db.query(
      `INSERT INTO served_recommendations (org, recommendation_id, strategy, mode, items, served_at, scenario, user_id) VALUES ($1, $2, 'popular', 'global', '[]', $3, 'home', 'u')`,
      [seq, rid, servedAt],
    );
    const clickedAt = new Date(servedAt.getTime() + HOUR);
    await db.query("SELECT ensure_events_partition($1)", [clickedAt]);
    await db.query(
      `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, recommendation_id, occurred_at, received_at)
       VALUES ($1, gen_random_uuid(), 'u', 'i', 'engagement', 'click', 1, $2, $3, $3)`,
      [seq, rid, clickedAt],
    );
  }
  return { org, seq };
}

async function countedDays(seq: number): Promise<string[]> {
  const { rows } = await server
    .db()
    .query<{ day: string }>(
      "SELECT to_char(day, 'YYYY-MM-DD') AS day FROM analytics_days WHERE org = $1 AND events_counted AND served_as_of IS NOT NULL ORDER BY day",
      [seq],
    );
  return rows.map((r) => r.day);
}

/** Rounds until one has nothing left to count for anyone (every shop of the test database included). */
async function precountAll(): Promise<void> {
  for (let round = 0; round < 100; round++) {
    const report = await precountDays(server.db(), 60_000);
    if (report && !report.unfinished) return;
  }
  throw new Error("precount never finished");
}

describe("analytics days counted ahead", () => {
  it("counts every day that is over since the shop was created, and a read then finds them counted and gives the same answer", async () => {
    const { org, seq } = await oldShop(40, [2, 10, 39]);
    await precountAll();
    const counted = await countedDays(seq);
    // The creation's day is not whole (counted by the reads alone); today is not over.
    expect(counted).toHaveLength(39);
    expect(counted[0]).toBe(isoDay(daysAgo(39)));
    expect(counted.at(-1)).toBe(isoDay(daysAgo(1)));
    const kept = await server
      .db()
      .query<{ served: number; clicks: number }>(
        "SELECT sum(served)::int AS served, sum(clicks)::int AS clicks FROM analytics_served_days WHERE org = $1",
        [seq],
      );
    expect(kept.rows[0]).toEqual({ served: 3, clicks: 3 });
    const r = await call(
      server.url,
      "GET",
      `/v1/analytics/strategies?from=${daysAgo(39).toISOString()}&to=${daysAgo(0).toISOString()}&granularity=day`,
      {
        token: org.token,
      },
    );
    expect(r.status).toBe(200);
    const popular = StrategyReportSchema.parse(r.body.data).series!.strategies.find((s) => s.strategy === "popular")!;
    expect(popular.served.reduce((a, b) => a + b, 0)).toBe(3);
    expect(popular.clicks.reduce((a, b) => a + b, 0)).toBe(3);
  });

  it("stops at its budget with days still to count, and the next rounds go on where it stopped, newest days first", async () => {
    const { seq } = await oldShop(400, [1, 100, 300]);
    await precountAll();
    await server.db().query("DELETE FROM analytics_days WHERE org = $1", [seq]);
    const report = await precountDays(server.db(), 1);
    // One month, the newest, however small the budget (a round always moves on); then the round stops.
    expect(report).toEqual({ organisations: 1, fills: 1, unfinished: true });
    const first = await countedDays(seq);
    expect(first).toHaveLength(31);
    expect(first.at(-1)).toBe(isoDay(daysAgo(1)));
    await precountAll();
    expect(await countedDays(seq)).toHaveLength(399);
  });

  it("never counts a day before the shop existed, nor more than 400 days back", async () => {
    const young = await oldShop(3, []);
    const ancient = await oldShop(1_000, []);
    await precountAll();
    expect(await countedDays(young.seq)).toEqual([isoDay(daysAgo(2)), isoDay(daysAgo(1))]);
    const days = await countedDays(ancient.seq);
    expect(days.length).toBeLessThanOrEqual(400);
    expect(days[0]! >= isoDay(daysAgo(400))).toBe(true);
  });

  it("lets one process count at a time: a round started while another holds the lock is skipped", async () => {
    const holder = await server.db().connect();
    try {
      await holder.query("SELECT pg_advisory_lock(727040)");
      expect(await precountDays(server.db(), 1_000)).toBeUndefined();
    } finally {
      await holder.query("SELECT pg_advisory_unlock(727040)");
      holder.release();
    }
  });
});
