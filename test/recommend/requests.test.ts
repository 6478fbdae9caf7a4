import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { recommend, recommended, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;

/** 30 active products with a clear popularity order (item n has n purchases), plus articles and hidden items. */
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  const colours = ["red", "green", "blue"];
  await upsertItems(
    server.url,
    org,
    Array.from({ length: 30 }, (_, n) => ({
      item_id: `p${n}`,
      attributes: { colour: colours[n % 3], price: n * 10, tags: n % 2 === 0 ? ["even", "sale"] : ["odd"], title: `Product ${n}` },
    })),
  );
  await upsertItems(server.url, org, [
    { item_id: "a1", item_type: "article", attributes: { colour: "red" } },
    { item_id: "a2", item_type: "article", attributes: { colour: "blue" } },
    { item_id: "gone", status: "deleted" },
    { item_id: "off", status: "inactive" },
  ]);
  const events: EventSpec[] = [];
  for (let n = 0; n < 30; n++) for (let k = 0; k < n; k++) events.push({ user: `buyer${k}`, item: `p${n}`, name: "purchase", hoursAgo: 5 });
  for (let k = 0; k < 40; k++)
    events.push(
      { user: `reader${k}`, item: "a1", hoursAgo: 5 },
      { user: `x${k}`, item: "gone", name: "purchase" },
      { user: `y${k}`, item: "off", name: "purchase" },
    );
  events.push({ user: "viewer", item: "p29", hoursAgo: 1 }, { user: "viewer", item: "p28", hoursAgo: 0.5 });
  await sendEvents(server.url, org, events);
});
afterAll(async () => {
  await server?.cleanup();
});

describe("recommend: response shape", () => {
  it("answers with every field of spec 2.4", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", limit: 3 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, message: expect.any(String) });
    const d = r.body.data;
    expect(d.recommendation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(d).toMatchObject({
      tenant_id: org.orgId,
      domain: "all",
      strategy: "popular",
      mode: "global",
      pagination: { page: 1, limit: 3, has_next: true },
    });
    expect(d.results).toHaveLength(3);
    expect(d.recommended_items).toEqual(d.results.map((x: { item_id: string }) => x.item_id));
    expect(typeof d.latency_ms).toBe("number");
    expect(d.results[0]).toEqual({
      item_id: "p29",
      score: expect.any(Number),
      reason: "popular",
      metadata: { colour: "blue", price: 290, tags: ["odd"], title: "Product 29", item_type: "product" },
    });
  });

  it("defaults to personalized, and falls back to popular (mode fallback) for an unknown user", async () => {
    const r = await recommend(server.url, org, { user_id: "nobody-knows-me" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ strategy: "personalized", mode: "fallback" });
    expect(r.body.data.results[0].reason).toBe("popular");
  });

  it("answers 200 with mode fallback for an unknown context item", async () => {
    const r = await recommend(server.url, org, { strategy: "similar", context_item_id: "no-such-item" });
    expect(r.status).toBe(200);
    expect(r.body.data.mode).toBe("fallback");
    expect(r.body.data.results.length).toBeGreaterThan(0);
  });

  it("never returns inactive or deleted items, however popular", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", limit: 100 });
    const items = r.body.data.recommended_items as string[];
    expect(items).not.toContain("gone");
    expect(items).not.toContain("off");
    // Every active item: p1..p29 and a1 (the items with interactions) by popularity, then p0 and a2 as new arrivals.
    expect(items).toHaveLength(32);
    const reasons = (r.body.data.results as Array<{ reason: string }>).map((x) => x.reason);
    expect(reasons).toEqual([...Array<string>(30).fill("popular"), "new", "new"]);
  });
});

describe("recommend: paging", () => {
  it("gives stable pages: page 2 continues page 1, and the same request gives the same order", async () => {
    const all = await recommended(server.url, org, { strategy: "popular", limit: 30 });
    const p1 = await recommend(server.url, org, { strategy: "popular", limit: 10, page: 1 });
    const p2 = await recommend(server.url, org, { strategy: "popular", limit: 10, page: 2 });
    expect([...p1.body.data.recommended_items, ...p2.body.data.recommended_items]).toEqual(all.slice(0, 20));
    expect(p2.body.data.pagination).toEqual({ page: 2, limit: 10, has_next: true });
    expect(await recommended(server.url, org, { strategy: "popular", limit: 30 })).toEqual(all);
  });

  it("says has_next false on the last page and answers an empty page beyond it", async () => {
    // 32 active items: the fourth page holds the last two.
    const third = await recommend(server.url, org, { strategy: "popular", limit: 10, page: 3 });
    expect(third.body.data.pagination.has_next).toBe(true);
    const last = await recommend(server.url, org, { strategy: "popular", limit: 10, page: 4 });
    expect(last.body.data.results).toHaveLength(2);
    expect(last.body.data.pagination.has_next).toBe(false);
    const beyond = await recommend(server.url, org, { strategy: "popular", limit: 10, page: 9 });
    expect(beyond.body.data.results).toEqual([]);
  });
});

describe("recommend: filters and restrictions", () => {
  it("filters by equality", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", filters: { colour: "green" }, limit: 100 });
    expect(r.body.data.results.length).toBe(10);
    for (const x of r.body.data.results) expect(x.metadata.colour).toBe("green");
  });

  it("filters by any of several values", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", filters: { colour: ["green", "blue"] }, item_type: "product", limit: 100 });
    expect(new Set(r.body.data.results.map((x: { metadata: { colour: string } }) => x.metadata.colour))).toEqual(new Set(["green", "blue"]));
    expect(r.body.data.results).toHaveLength(20);
  });

  it("filters by an inclusive numeric range", async () => {
    const items = await recommended(server.url, org, { strategy: "popular", filters: { price: { min: 100, max: 120 } } });
    expect(items).toEqual(["p12", "p11", "p10"]);
  });

  it("matches an array attribute when it contains the wanted value, and combines filters with AND", async () => {
    const items = await recommended(server.url, org, { strategy: "popular", filters: { tags: "sale", colour: "red" }, limit: 100 });
    // p0 matches too, but nobody interacted with it: it comes last, from new arrivals.
    expect(items).toEqual(["p24", "p18", "p12", "p6", "p0"]);
  });

  it("restricts to item_type (or filters.item_type) and reports it as the domain", async () => {
    for (const body of [{ item_type: "article" }, { filters: { item_type: "article" } }]) {
      const r = await recommend(server.url, org, { strategy: "popular", ...body });
      expect(r.body.data.domain).toBe("article");
      // a2 has no interaction: it follows, from new arrivals.
      expect(r.body.data.recommended_items).toEqual(["a1", "a2"]);
    }
  });

  it("leaves out exclude_item_ids", async () => {
    const items = await recommended(server.url, org, { strategy: "popular", exclude_item_ids: ["a1", "p29"], limit: 2 });
    expect(items).toEqual(["p28", "p27"]);
  });

  it("leaves out what the user has seen when exclude_seen is true, for any strategy", async () => {
    const items = await recommended(server.url, org, { strategy: "popular", user_id: "viewer", exclude_seen: true, limit: 3 });
    expect(items).toEqual(["p27", "p26", "p25"]);
    const unfiltered = await recommended(server.url, org, { strategy: "popular", user_id: "viewer", limit: 3 });
    expect(unfiltered).toEqual(["p29", "p28", "p27"]);
  });

  it("gives each of many identical requests its own recommendation_id and the same items", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => recommend(server.url, org, { strategy: "popular", limit: 3 })));
    expect(new Set(answers.map((r) => r.body.data.recommendation_id)).size).toBe(20);
    for (const r of answers) expect(r.body.data.recommended_items).toEqual(["p29", "p28", "p27"]);
  });

  it("gives requests that differ only in fields, limit or page each their own answer", async () => {
    const meta = async (body: Record<string, unknown>) =>
      (await recommend(server.url, org, { strategy: "popular", ...body })).body.data.results.map((x: { metadata: object }) => x.metadata);
    expect(await meta({ limit: 1 })).toEqual([{ colour: "blue", price: 290, tags: ["odd"], title: "Product 29", item_type: "product" }]);
    expect(await meta({ limit: 1, fields: ["price"] })).toEqual([{ price: 290, item_type: "product" }]);
    expect(await meta({ limit: 1, fields: ["title"] })).toEqual([{ title: "Product 29", item_type: "product" }]);
    expect(await recommended(server.url, org, { strategy: "popular", limit: 2, page: 2 })).toEqual(["p27", "p26"]);
    expect(await recommended(server.url, org, { strategy: "popular", limit: 3 })).toEqual(["p29", "p28", "p27"]);
  });

  it('gives fields ["*"] and no fields, and ["colour\\u0000price"] and ["colour", "price"], each their own answer when asked back to back', async () => {
    const meta = async (fields: string[] | undefined) =>
      (await recommend(server.url, org, { strategy: "popular", limit: 1, fields })).body.data.results[0].metadata;
    const whole = { colour: "blue", price: 290, tags: ["odd"], title: "Product 29", item_type: "product" };
    // Back to back, each order several times: the second of a pair comes within the shared answer's 100 ms.
    for (let round = 0; round < 5; round++) {
      expect(await meta(["*"])).toEqual({ item_type: "product" });
      expect(await meta(undefined)).toEqual(whole);
      expect(await meta(["*"])).toEqual({ item_type: "product" });
      expect(await meta(["colour\u0000price"])).toEqual({ item_type: "product" });
      expect(await meta(["colour", "price"])).toEqual({ colour: "blue", price: 290, item_type: "product" });
      expect(await meta(["colour\u0000price"])).toEqual({ item_type: "product" });
    }
  });

  it("copies only the attributes named in fields into metadata (item_type always)", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", item_type: "product", fields: ["price", "nope"], limit: 1 });
    expect(r.body.data.results[0].metadata).toEqual({ price: 290, item_type: "product" });
  });
});

describe("recommend: bad requests", () => {
  const bad: Array<[string, Record<string, unknown>, RegExp]> = [
    ["an unknown strategy", { strategy: "magic" }, /strategy: must be one of/],
    ["personalized without user_id", { strategy: "personalized" }, /user_id: is required for strategy personalized/],
    ["recently-viewed without user_id", { strategy: "recently-viewed" }, /user_id: is required/],
    ["similar without context_item_id", { strategy: "similar" }, /context_item_id: is required for strategy similar/],
    ["frequently-bought-together without context_item_id", { strategy: "frequently-bought-together" }, /context_item_id: is required/],
    ["limit 0", { strategy: "popular", limit: 0 }, /limit: must be 1 to 100/],
    ["limit 101", { strategy: "popular", limit: 101 }, /limit: must be 1 to 100/],
    ["a fractional limit", { strategy: "popular", limit: 2.5 }, /limit: must be an integer/],
    ["page 0", { strategy: "popular", page: 0 }, /page: must be 1 or more/],
    ["a page beyond 10,000 positions", { strategy: "popular", page: 101, limit: 100 }, /page: page × limit must not exceed 10000/],
    ["an unknown field", { strategy: "popular", colour: "red" }, /unknown field\(s\) 'colour'/],
    ["a filter that is an object but not a range", { strategy: "popular", filters: { price: { from: 1 } } }, /filters\.price/],
    ["an empty any-of filter", { strategy: "popular", filters: { colour: [] } }, /filters\.colour/],
    ["a range with min above max", { strategy: "popular", filters: { price: { min: 5, max: 1 } } }, /filters\.price/],
    ["exclude_item_ids that is not an array", { strategy: "popular", exclude_item_ids: "p1" }, /exclude_item_ids/],
    ["a user_id with control characters", { strategy: "personalized", user_id: "a\u0001b" }, /user_id: must not contain control characters/],
  ];
  for (const [what, body, message] of bad) {
    it(`answers 400 validation_error for ${what}`, async () => {
      const r = await recommend(server.url, org, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: "validation_error" });
      expect(r.body.message).toMatch(message);
    });
  }

  it("answers 400 validation_error for a body that is not an object", async () => {
    const r = await recommend(server.url, org, [] as unknown as Record<string, unknown>);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
  });

  it("answers 403 wrong_key_type when a secret key calls recommend", async () => {
    const r = await call(server.url, "POST", "/v1/recommend", { json: { strategy: "popular" }, apiKey: org.sk });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("wrong_key_type");
  });

  it("answers 401 missing_api_key without a key, and serves /api/v1/recommend the same way", async () => {
    expect((await call(server.url, "POST", "/v1/recommend", { json: { strategy: "popular" } })).body.error).toBe("missing_api_key");
    const r = await call(server.url, "POST", "/api/v1/recommend", { json: { strategy: "popular" }, apiKey: org.pk });
    expect(r.status).toBe(200);
  });
});
