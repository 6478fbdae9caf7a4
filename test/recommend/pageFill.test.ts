import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Result {
  item_id: string;
  score: number;
  reason: string;
}

let server: TestServer;
/** A shop with a catalog of 40 items and no event yet. */
let empty: Org;
/** A shop of 120 items whose users each viewed items of one of two groups, and one user with a single event. */
let shop: Org;

const CATALOG = 40;
const ITEMS = 120;

/** The answer's data, after checking what every page must hold: no score of 0 or less, no item twice. */
async function page(org: Org, body: Record<string, unknown>): Promise<{ mode: string; results: Result[] }> {
  const r = await recommend(server.url, org, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const results = r.body.data.results as Result[];
  expect(
    results.filter((x) => !(x.score > 0)),
    JSON.stringify(body),
  ).toEqual([]);
  expect(new Set(results.map((x) => x.item_id)).size).toBe(results.length);
  return { mode: r.body.data.mode as string, results };
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  [empty, shop] = await Promise.all([newOrg(server.url), newOrg(server.url)]);
  const day = (d: number) => new Date(Date.UTC(2025, 0, 1 + d)).toISOString();
  await upsertItems(
    server.url,
    empty,
    Array.from({ length: CATALOG }, (_, i) => ({ item_id: `e${i}`, created_at: day(i) })),
  );
  await upsertItems(
    server.url,
    shop,
    Array.from({ length: ITEMS }, (_, i) => ({ item_id: `i${i}`, created_at: day(i) })),
  );
  const events: EventSpec[] = [];
  // Two groups of ten items, each viewed by its own 30 users; the other 100 items have no event.
  for (let u = 0; u < 60; u++) {
    for (let k = 0; k < 10; k++) if ((u + k) % 3 !== 0) events.push({ user: `u${u}`, item: `i${(u % 2) * 10 + k}`, hoursAgo: 5 });
  }
  events.push({ user: "one", item: "i0", hoursAgo: 1 });
  // Bought with nothing: i50 is only ever viewed.
  events.push({ user: "looker", item: "i50", hoursAgo: 2 });
  await sendEvents(server.url, shop, events);
  await eventually(
    () => recommend(server.url, shop, { strategy: "personalized", user_id: "u0" }),
    (r) => r.body.data?.mode === "personalized",
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await server?.cleanup();
});

describe("a page is full, and never holds filler of no score", () => {
  it("fills personalized's 100 places for a user of one event from popular, then new arrivals", async () => {
    const { mode, results } = await page(shop, { strategy: "personalized", user_id: "one", limit: 100 });
    expect(mode).toBe("personalized");
    // Every item but the one seen.
    expect(results).toHaveLength(100);
    expect(results.map((r) => r.item_id)).not.toContain("i0");
    const reasons = results.map((r) => r.reason);
    // The model's own results first, then what popular adds, then new arrivals, each block in one piece.
    const firstPopular = reasons.indexOf("popular");
    const firstNew = reasons.indexOf("new");
    expect(reasons[0]).toBe("collaborative");
    expect(firstPopular).toBeGreaterThan(0);
    expect(firstNew).toBeGreaterThan(firstPopular);
    expect(reasons.slice(0, firstPopular).every((r) => r === "collaborative")).toBe(true);
    expect(reasons.slice(firstPopular, firstNew).every((r) => r === "popular")).toBe(true);
    expect(reasons.slice(firstNew).every((r) => r === "new")).toBe(true);
    // New arrivals rank the never-viewed items newest first.
    const news = results.slice(firstNew).map((r) => Number(r.item_id.slice(1)));
    expect(news).toEqual([...news].sort((a, b) => b - a));
  });

  it("answers the second page where the first left off, with has_next until the catalog runs out", async () => {
    const first = await recommend(server.url, shop, { strategy: "personalized", user_id: "one", limit: 60, page: 1 });
    const second = await recommend(server.url, shop, { strategy: "personalized", user_id: "one", limit: 60, page: 2 });
    expect(first.body.data.pagination.has_next).toBe(true);
    expect(second.body.data.pagination.has_next).toBe(false);
    const all = [...first.body.data.recommended_items, ...second.body.data.recommended_items] as string[];
    expect(all).toHaveLength(ITEMS - 1);
    expect(new Set(all).size).toBe(ITEMS - 1);
  });

  it("never returns a because-you-viewed item of score 0, and fills the page instead", async () => {
    const { mode, results } = await page(shop, { strategy: "because-you-viewed", user_id: "one", limit: 30 });
    expect(mode).toBe("personalized");
    expect(results).toHaveLength(30);
  });

  it("leaves the context item out of its own answer, even when the answer is popular's", async () => {
    for (const strategy of ["frequently-bought-together", "also-viewed", "similar"]) {
      for (const context of ["i50", "i0", "i3"]) {
        const { results } = await page(shop, { strategy, context_item_id: context, limit: 50 });
        expect(
          results.map((r) => r.item_id),
          `${strategy} of ${context}`,
        ).not.toContain(context);
        expect(results).toHaveLength(50);
      }
    }
    // i50 was bought with nothing: the answer is the fallbacks', popular items first.
    const { mode, results } = await page(shop, { strategy: "frequently-bought-together", context_item_id: "i50", limit: 5 });
    expect(mode).toBe("fallback");
    expect(results.map((r) => r.reason)).toEqual(["popular", "popular", "popular", "popular", "popular"]);
  });

  it("gives a shop with a catalog and no events a full page of new arrivals from every strategy", async () => {
    const newestFirst = Array.from({ length: 10 }, (_, k) => `e${CATALOG - 1 - k}`);
    for (const body of [
      { strategy: "popular" },
      { strategy: "trending" },
      { strategy: "new-arrivals" },
      { strategy: "personalized", user_id: "someone" },
      { strategy: "because-you-viewed", user_id: "someone" },
      { strategy: "similar", context_item_id: "e39" },
      { strategy: "frequently-bought-together", context_item_id: "e0" },
    ]) {
      const { mode, results } = await page(empty, { ...body, limit: 10 });
      const want = body.context_item_id === "e39" ? [...newestFirst.slice(1), `e${CATALOG - 11}`] : newestFirst;
      expect(
        results.map((r) => r.item_id),
        JSON.stringify(body),
      ).toEqual(want);
      expect(results.every((r) => r.reason === "new")).toBe(true);
      expect(mode).toBe(body.strategy === "new-arrivals" ? "global" : "fallback");
    }
  });
});
