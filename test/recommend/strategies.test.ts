import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, recommended, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
const users = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Planted data: each strategy's expected answer is built into the events below. */
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  const catalog = [
    "hot",
    "rising",
    "camera",
    "sdcard",
    "tent",
    "sleepingbag",
    "p1",
    "p2",
    "p3",
    "p4",
    "p5",
    "p6",
    "p7",
    "p8",
    "p9",
    "p10",
    ...users("g", 6),
    ...users("h", 6),
  ];
  await upsertItems(
    server.url,
    org,
    catalog.map((item_id) => ({ item_id, created_at: "2024-01-01T00:00:00Z", attributes: { brand: "x" } })),
  );
  await upsertItems(server.url, org, [
    { item_id: "boot-a", attributes: { category: "boots", brand: "trek", price: 90 }, created_at: "2024-01-01T00:00:00Z" },
    { item_id: "boot-b", attributes: { category: "boots", brand: "trek", price: 95 }, created_at: "2024-01-01T00:00:00Z" },
    { item_id: "boot-c", attributes: { category: "boots", brand: "other", price: 40 }, created_at: "2024-01-01T00:00:00Z" },
    { item_id: "shirt", attributes: { category: "shirts", brand: "other", price: 20 }, created_at: "2024-01-01T00:00:00Z" },
    { item_id: "fresh", created_at: new Date(Date.now() - 3_600_000).toISOString() },
    { item_id: "fresh-but-hidden", status: "inactive", created_at: new Date().toISOString() },
  ]);
  const events: EventSpec[] = [];
  // popular: "hot" has many views spread over the past days; "rising" fewer, all in the last hour.
  for (const [i, u] of users("fan", 20).entries()) events.push({ user: u, item: "hot", name: "purchase", hoursAgo: 48 + i * 4 });
  for (const u of users("early", 8)) events.push({ user: u, item: "rising", hoursAgo: 0.5 });
  events.push({ user: "once", item: "p1" }, { user: "once", item: "p2", hoursAgo: 30 });
  // frequently-bought-together: camera and sdcard bought together; camera also bought alone with the popular item.
  for (const u of users("buyer", 6))
    events.push({ user: u, item: "camera", name: "purchase", hoursAgo: 40 }, { user: u, item: "sdcard", name: "purchase", hoursAgo: 39.9 });
  for (const u of users("solo", 3))
    events.push({ user: u, item: "hot", name: "purchase", hoursAgo: 200 }, { user: u, item: "camera", name: "purchase", hoursAgo: 41 });
  // also-viewed: tent, then the sleeping bag.
  for (const u of users("camper", 6)) events.push({ user: u, item: "tent", hoursAgo: 30 }, { user: u, item: "sleepingbag", hoursAgo: 29.9 });
  // recently-viewed and buy-again
  events.push({ user: "rv", item: "p3", hoursAgo: 3 }, { user: "rv", item: "p5", hoursAgo: 2 }, { user: "rv", item: "p7", hoursAgo: 1 });
  for (const h of [500, 300, 100]) events.push({ user: "ba", item: "p9", name: "purchase", hoursAgo: h });
  events.push({ user: "ba", item: "p10", name: "purchase", hoursAgo: 2000 });
  // personalized: two tastes, g-items and h-items, each liked by its own group of users.
  for (let u = 0; u < 8; u++) {
    for (let i = 0; i < 6; i++) {
      if ((u + i) % 4 === 0) continue; // each user misses a few of their group's items
      events.push({ user: `ga${u}`, item: `g${i}`, hoursAgo: 10 }, { user: `ha${u}`, item: `h${i}`, hoursAgo: 10 });
    }
  }
  events.push({ user: "pa", item: "g0", hoursAgo: 5 }, { user: "pa", item: "g1", hoursAgo: 5 }, { user: "pa", item: "g2", hoursAgo: 5 });
  // because-you-viewed: a user who just looked at the tent.
  events.push({ user: "byv", item: "tent", hoursAgo: 0.1 });
  await sendEvents(server.url, org, events);
});
afterAll(async () => {
  await server?.cleanup();
});

describe("strategies on planted data", () => {
  it("popular ranks the item with the most recent weighted interactions first", async () => {
    const r = await recommend(server.url, org, { strategy: "popular" });
    expect(r.status).toBe(200);
    expect(r.body.data.recommended_items[0]).toBe("hot");
    expect(r.body.data).toMatchObject({ strategy: "popular", mode: "global" });
    expect(r.body.data.results[0]).toMatchObject({ item_id: "hot", reason: "popular" });
  });

  it("trending ranks the item growing fastest in the last hours first, not the steady favourite", async () => {
    const r = await recommend(server.url, org, { strategy: "trending" });
    expect(r.body.data.recommended_items[0]).toBe("rising");
    expect(r.body.data.results[0].reason).toBe("trending");
    expect(r.body.data.recommended_items.slice(0, 3)).not.toContain("hot");
  });

  it("new-arrivals ranks the newest active item first and never an inactive one", async () => {
    const items = await recommended(server.url, org, { strategy: "new-arrivals", limit: 100 });
    expect(items[0]).toBe("fresh");
    expect(items).not.toContain("fresh-but-hidden");
  });

  it("recently-viewed lists the user's own views, newest first", async () => {
    const r = await recommend(server.url, org, { strategy: "recently-viewed", user_id: "rv" });
    expect(r.body.data.recommended_items).toEqual(["p7", "p5", "p3"]);
    expect(r.body.data.mode).toBe("personalized");
    expect(r.body.data.results[0].reason).toBe("recently-viewed");
  });

  it("buy-again ranks what the user bought repeatedly first", async () => {
    const r = await recommend(server.url, org, { strategy: "buy-again", user_id: "ba" });
    expect(r.body.data.recommended_items).toEqual(["p9", "p10"]);
    expect(r.body.data.results[0].reason).toBe("bought-before");
  });

  it("frequently-bought-together ranks the item bought with the context item first, not the merely popular one", async () => {
    const r = await recommend(server.url, org, { strategy: "frequently-bought-together", context_item_id: "camera" });
    expect(r.body.data.recommended_items[0]).toBe("sdcard");
    expect(r.body.data.results[0].reason).toBe("bought-with:camera");
    expect(r.body.data.mode).toBe("contextual");
  });

  it("also-viewed ranks the item viewed by the same people first", async () => {
    const r = await recommend(server.url, org, { strategy: "also-viewed", context_item_id: "tent" });
    expect(r.body.data.recommended_items[0]).toBe("sleepingbag");
    expect(r.body.data.results[0].reason).toBe("viewed-with:tent");
  });

  it("similar finds neighbours by attributes for items without any events", async () => {
    const r = await recommend(server.url, org, { strategy: "similar", context_item_id: "boot-a" });
    expect(r.body.data.recommended_items[0]).toBe("boot-b");
    expect(r.body.data.recommended_items.indexOf("boot-c")).toBeLessThan(r.body.data.recommended_items.indexOf("shirt") >>> 0);
    expect(r.body.data.results[0].reason).toBe("similar-to:boot-a");
  });

  // Every g-item, like most of the catalog, has only brand "x": attributes cannot tell them apart, learned vectors can.
  it("similar ranks the items the same users engaged with above items whose attributes match just as well", async () => {
    await eventually(
      () => recommend(server.url, org, { strategy: "personalized", user_id: "pa" }),
      (r) => r.body.data?.mode === "personalized",
      20_000,
    );
    const r = await recommend(server.url, org, { strategy: "similar", context_item_id: "g0", limit: 5 });
    expect(r.body.data.mode).toBe("contextual");
    expect(r.body.data.recommended_items).toEqual(expect.arrayContaining(["g1", "g2", "g3", "g4", "g5"]));
  });

  it("because-you-viewed recommends what goes with the user's latest item, saying which", async () => {
    const r = await recommend(server.url, org, { strategy: "because-you-viewed", user_id: "byv" });
    expect(r.body.data.recommended_items[0]).toBe("sleepingbag");
    expect(r.body.data.recommended_items).not.toContain("tent"); // seen: excluded by default
    expect(r.body.data.results[0].reason).toBe("similar-to:tent");
  });

  it("personalized recommends the unseen items of the user's taste group, once the model is trained", async () => {
    const { value } = await eventually(
      () => recommend(server.url, org, { strategy: "personalized", user_id: "pa", limit: 3 }),
      (r) => r.body.data?.mode === "personalized",
      20_000,
    );
    expect(value.body.data.mode).toBe("personalized");
    const top = value.body.data.recommended_items as string[];
    expect(top.filter((i) => ["g3", "g4", "g5"].includes(i)).length).toBeGreaterThanOrEqual(2);
    expect(top).not.toContain("g0"); // seen
    expect(value.body.data.results[0].reason).toBe("collaborative");
  });

  it("personalized answers a user's new events within a second, by folding them in without retraining", async () => {
    await eventually(
      () => recommend(server.url, org, { strategy: "personalized", user_id: "pa" }),
      (r) => r.body.data?.mode === "personalized",
      20_000,
    );
    await sendEvents(server.url, org, [
      { user: "newcomer", item: "h0" },
      { user: "newcomer", item: "h1" },
      { user: "newcomer", item: "h2" },
    ]);
    const { value, ms } = await eventually(
      () => recommend(server.url, org, { strategy: "personalized", user_id: "newcomer", limit: 3 }),
      (r) => r.body.data?.mode === "personalized",
      1000,
    );
    expect(ms).toBeLessThanOrEqual(1000);
    const top = value.body.data.recommended_items as string[];
    expect(top.filter((i) => ["h3", "h4", "h5"].includes(i)).length).toBeGreaterThanOrEqual(2);
  });
});
