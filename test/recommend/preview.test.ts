import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PreviewAnswerSchema } from "../../src/recommend/answer.js";
import { call, newOrg, type ApiResponse, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
/**
 * Twelve items p00…p11 of brands A and B in turn, `price` their number, each viewed 12 − k times by users u0…:
 * `popular` ranks p00 first. `off` is inactive.
 */
let shop: Org;
const ITEMS = Array.from({ length: 12 }, (_, k) => `p${String(k).padStart(2, "0")}`);

/** Previews an organisation may ask for per window in these tests (more than the other tests ask for). */
const PREVIEWS_MAX = 40;

function preview(body: Record<string, unknown>, token = shop.token): Promise<ApiResponse> {
  return call(server.url, "POST", "/v1/recommend/preview", { token, json: body });
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000", PREVIEW_RATE_LIMIT_MAX: String(PREVIEWS_MAX) } });
  shop = await newOrg(server.url);
  await upsertItems(server.url, shop, [
    ...ITEMS.map((item_id, k) => ({ item_id, attributes: { brand: k % 2 === 0 ? "A" : "B", price: k, title: `Item ${k}` } })),
    { item_id: "off", status: "inactive", attributes: { brand: "A", price: 1 } },
  ]);
  const events: EventSpec[] = [];
  ITEMS.forEach((item, k) => {
    for (let u = 0; u < 12 - k; u++) events.push({ user: `u${u}`, item, hoursAgo: 1 });
  });
  await sendEvents(server.url, shop, events);
  await eventually(
    () => recommend(server.url, shop, { strategy: "popular", limit: 12 }),
    (r) => r.body.data?.results?.length === 12 && r.body.data.results[0].item_id === "p00" && r.body.data.results[11].item_id === "p11",
    30_000,
  );
}, 90_000);

afterAll(async () => {
  await server?.cleanup();
});

describe("POST /v1/recommend/preview", () => {
  it("answers the page /v1/recommend gives for the same body, with an explanation per result, and writes no served row", async () => {
    const body = { strategy: "popular", limit: 5, scenario: "preview-probe", filters: { brand: "A" } };
    const p = await preview(body);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const r = await recommend(server.url, shop, { ...body, scenario: "after-probe" });
    expect(r.status).toBe(200);
    expect(p.body.data.results).toEqual(r.body.data.results);
    expect(p.body.data.recommended_items).toEqual(["p00", "p02", "p04", "p06", "p08"]);
    expect(p.body.data.mode).toBe(r.body.data.mode);
    expect(p.body.data.pagination).toEqual(r.body.data.pagination);
    expect(p.body.data.recommendation_id).toBeUndefined();
    expect(PreviewAnswerSchema.safeParse(p.body.data).error).toBeUndefined();
    const x = p.body.data.explanation;
    expect(x.model).toBe("popularity");
    expect(x.catalog_items).toBe(13);
    expect(x.eligible_items).toBe(6);
    expect(x.removed).toEqual([
      { reason: "inactive", count: 1 },
      { reason: "filter:brand", count: 6 },
    ]);
    expect(x.emptied_by).toBeNull();
    expect(x.results.map((e: { item_id: string }) => e.item_id)).toEqual(p.body.data.recommended_items);
    expect(x.results[0]).toEqual({ item_id: "p00", source: "popular", score: p.body.data.results[0].score, position_before_rules: 1, rules: [] });
    // Served rows are written in order: once the recommend's row is there, the preview's would be too.
    const rows = async (scenario: string) =>
      (await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM served_recommendations WHERE scenario = $1", [scenario])).rows[0]!.n;
    await eventually(
      () => rows("after-probe"),
      (n) => n === 1,
      10_000,
    );
    expect(await rows("preview-probe")).toBe(0);
  });

  it("says which filter removed every item when a filter names an attribute no item has, or a range on a text attribute", async () => {
    const missing = await preview({ strategy: "popular", filters: { colour: "red" } });
    expect(missing.status).toBe(200);
    expect(missing.body.data.results).toEqual([]);
    expect(missing.body.data.explanation.emptied_by).toBe("filter:colour");
    expect(missing.body.data.explanation.eligible_items).toBe(0);
    expect(missing.body.data.explanation.removed).toEqual([
      { reason: "inactive", count: 1 },
      { reason: "filter:colour", count: 12, note: expect.stringContaining("colour") },
    ]);
    const range = await preview({ strategy: "popular", filters: { price: { max: 5 }, brand: { min: 1 } } });
    expect(range.status).toBe(200);
    expect(range.body.data.results).toEqual([]);
    const x = range.body.data.explanation;
    expect(x.removed).toEqual([
      { reason: "inactive", count: 1 },
      { reason: "filter:price", count: 6 },
      { reason: "filter:brand", count: 6, note: expect.stringContaining('no item left by the checks before it has a number for "brand"') },
    ]);
    expect(x.emptied_by).toBe("filter:brand");
  });

  it("names each rule applied to a result, its score before the rule and its position before rules", async () => {
    const rule = await call(server.url, "POST", "/v1/rules", {
      apiKey: shop.sk,
      json: { name: "p07 third", enabled: true, action: "pin", position: 3, items: { item_id: ["p07"] } },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const boost = await call(server.url, "POST", "/v1/rules", {
      apiKey: shop.sk,
      json: { name: "brand B up", enabled: true, action: "boost", factor: 1.5, items: { brand: "B" } },
    });
    expect(boost.status).toBe(201);
    try {
      const p = await preview({ strategy: "popular", limit: 5 });
      expect(p.status).toBe(200);
      const r = await recommend(server.url, shop, { strategy: "popular", limit: 5 });
      expect(p.body.data.results).toEqual(r.body.data.results);
      const x = p.body.data.explanation;
      expect(x.rules).toEqual([
        { name: "p07 third", action: "pin" },
        { name: "brand B up", action: "boost" },
      ]);
      const third = x.results[2];
      expect(third).toMatchObject({ item_id: "p07", source: "popular", position_before_rules: 8 });
      expect(third.rules).toEqual([
        { name: "p07 third", action: "pin" },
        { name: "brand B up", action: "boost" },
      ]);
      expect(p.body.data.results[2].reason).toBe("pinned:p07 third");
      const p01 = x.results.find((e: { item_id: string }) => e.item_id === "p01");
      expect(p01.rules).toEqual([{ name: "brand B up", action: "boost" }]);
      expect(p01.position_before_rules).toBe(2);
      // The answer's score is the boosted one; the explanation's the strategy's own.
      const shown = p.body.data.results.find((e: { item_id: string }) => e.item_id === "p01");
      expect(shown.score).toBeCloseTo(p01.score * 1.5, 5);
    } finally {
      await call(server.url, "DELETE", `/v1/rules/${rule.body.data.rule_id}`, { apiKey: shop.sk });
      await call(server.url, "DELETE", `/v1/rules/${boost.body.data.rule_id}`, { apiKey: shop.sk });
    }
  });

  it("counts the items a block rule, the candidates list and the excluded ids removed", async () => {
    const rule = await call(server.url, "POST", "/v1/rules", {
      apiKey: shop.sk,
      json: { name: "no p01", enabled: true, action: "block", items: { item_id: ["p01"] } },
    });
    expect(rule.status).toBe(201);
    try {
      const p = await preview({ strategy: "popular", candidates: ["p00", "p01", "p02", "p03", "off", "nope"], exclude_item_ids: ["p02"] });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      expect(p.body.data.recommended_items).toEqual(["p00", "p03"]);
      const x = p.body.data.explanation;
      expect(x.removed).toEqual([
        { reason: "not_in_candidates", count: 8 },
        { reason: "inactive", count: 1 },
        { reason: "excluded", count: 1 },
        { reason: "blocked:no p01", count: 1 },
      ]);
      expect(x.eligible_items).toBe(2);
      expect(x.rules).toEqual([{ name: "no p01", action: "block" }]);
      expect(x.results.map((e: { rules: unknown[] }) => e.rules)).toEqual([[], []]);
    } finally {
      await call(server.url, "DELETE", `/v1/rules/${rule.body.data.rule_id}`, { apiKey: shop.sk });
    }
  });

  it("shapes the page by the user's variant of the scenario's running experiment, as recommend does, and names it", async () => {
    const created = await call(server.url, "POST", "/v1/experiments", {
      apiKey: shop.sk,
      json: {
        name: "newest or popular",
        scenario: "exp-probe",
        variants: [
          { name: "control", share: 0.5 },
          { name: "newest", share: 0.5, strategy: "new-arrivals" },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const user of ["u0", "u1", "u2", "u3"]) {
      const body = { strategy: "popular", scenario: "exp-probe", user_id: user, limit: 4 };
      const r = await recommend(server.url, shop, body);
      const p = await preview(body);
      expect(p.status).toBe(200);
      expect(p.body.data.experiment).toMatchObject({ id: created.body.data.experiment_id });
      expect(p.body.data.experiment).toEqual(r.body.data.experiment);
      expect(p.body.data.strategy).toBe(r.body.data.strategy);
      expect(p.body.data.results).toEqual(r.body.data.results);
    }
    await call(server.url, "POST", `/v1/experiments/${created.body.data.experiment_id}/stop`, { apiKey: shop.sk });
  });

  it("explains a fallback: an unknown user's page comes from popular", async () => {
    const p = await preview({ strategy: "personalized", user_id: "nobody", limit: 3 });
    expect(p.status).toBe(200);
    expect(p.body.data.mode).toBe("fallback");
    const x = p.body.data.explanation;
    expect(x.fallback).toMatchObject({ reason: "unknown_user", own_results: 0, filled_by: ["popular"] });
    expect(x.results.map((e: { source: string }) => e.source)).toEqual(["popular", "popular", "popular"]);
  });

  it("lets any role preview, validates the body as /v1/recommend does, and answers 401 without a dashboard token", async () => {
    const member = await memberToken(server, shop, "MEMBER");
    expect((await preview({ strategy: "popular", limit: 2 }, member)).status).toBe(200);
    const bad = await preview({ strategy: "popular", limit: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("limit");
    const none = await call(server.url, "POST", "/v1/recommend/preview", { json: { strategy: "popular" } });
    expect(none.status).toBe(401);
    const key = await call(server.url, "POST", "/v1/recommend/preview", { apiKey: shop.pk, json: { strategy: "popular" } });
    expect(key.status).toBe(401);
    const secret = await call(server.url, "POST", "/v1/recommend/preview", { apiKey: shop.sk, json: { strategy: "popular" } });
    expect(secret.status).toBe(401);
  });

  it("answers 429 rate_limited with Retry-After past PREVIEW_RATE_LIMIT_MAX previews of an organisation in a window, and not to another organisation", async () => {
    const busy = await newOrg(server.url);
    for (let k = 0; k < PREVIEWS_MAX; k++) expect((await preview({ strategy: "popular" }, busy.token)).status).toBe(200);
    const refused = await preview({ strategy: "popular" }, busy.token);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await preview({ strategy: "popular" })).status).toBe(200);
  });
});
