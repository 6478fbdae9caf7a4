import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
let other: Org;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  [org, other] = [await newOrg(server.url), await newOrg(server.url)];
  await upsertItems(
    server.url,
    org,
    ["a", "b", "c"].map((item_id) => ({ item_id })),
  );
  await sendEvents(server.url, org, [
    { user: "x", item: "a" },
    { user: "y", item: "b" },
    { user: "x", item: "c" },
  ]);
});
afterAll(async () => {
  await server?.cleanup();
});

const served = (id: string) => server.db().query("SELECT * FROM served_recommendations WHERE recommendation_id = $1", [id]);

describe("attribution", () => {
  it("logs every served recommendation with its id, organisation, strategy, user, context item, items and time", async () => {
    const r = await recommend(server.url, org, { strategy: "also-viewed", context_item_id: "a", user_id: "y" });
    const id = r.body.data.recommendation_id;
    const { value } = await eventually(
      () => served(id),
      (q) => q.rowCount === 1,
      3000,
    );
    const seq = (await server.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0].seq;
    expect(value.rows[0]).toMatchObject({
      org: seq,
      strategy: "also-viewed",
      scenario: "default",
      mode: r.body.data.mode,
      user_id: "y",
      context_item_id: "a",
      items: r.body.data.recommended_items,
    });
    expect(Math.abs(Date.now() - value.rows[0].served_at.getTime())).toBeLessThan(60_000);
  });

  it("logs user and context item ids that are not ASCII exactly as sent", async () => {
    const r = await recommend(server.url, await newOrg(server.url), {
      strategy: "also-viewed",
      context_item_id: "café ☕ 日本",
      user_id: "usér-ß 😀",
    });
    expect(r.status).toBe(200);
    const { value } = await eventually(
      () => served(r.body.data.recommendation_id),
      (q) => q.rowCount === 1,
      3000,
    );
    expect(value.rows[0]).toMatchObject({ user_id: "usér-ß 😀", context_item_id: "café ☕ 日本", items: r.body.data.recommended_items });
  });

  it("has the served log vacuumed at a fifth of the default pace, so that its upkeep does not take the serving cores", async () => {
    const { rows } = await server.db().query("SELECT reloptions FROM pg_class WHERE relname = 'served_recommendations'");
    expect(rows[0].reloptions).toContain("autovacuum_vacuum_cost_delay=10");
  });

  it("keeps item ids that need JSON escapes or are not ASCII exact, in the answer and in the logged row", async () => {
    const odd = await newOrg(server.url);
    const ids = ['say "hi"', "back\\slash", "café 日本", "😀/tab"];
    await upsertItems(
      server.url,
      odd,
      ids.map((item_id) => ({ item_id })),
    );
    await sendEvents(
      server.url,
      odd,
      ids.map((item, k) => ({ user: `u${k}`, item, name: "purchase" })),
    );
    const { value: r } = await eventually(
      () => recommend(server.url, odd, { strategy: "popular" }),
      (a) => a.body.data?.recommended_items?.length === ids.length,
    );
    const d = r.body.data;
    expect([...d.recommended_items].sort()).toEqual([...ids].sort());
    expect(d.results.map((x: { item_id: string }) => x.item_id)).toEqual(d.recommended_items);
    const { value } = await eventually(
      () => served(d.recommendation_id),
      (q) => q.rowCount === 1,
      3000,
    );
    expect(value.rows[0].items).toEqual(d.recommended_items);
  });

  it("reports, per strategy, served recommendations with the clicks and conversions of events carrying their id", async () => {
    const ids: string[] = [];
    for (let k = 0; k < 4; k++) ids.push((await recommend(server.url, org, { strategy: "popular" })).body.data.recommendation_id);
    const trending = (await recommend(server.url, org, { strategy: "trending" })).body.data.recommendation_id;
    await sendEvents(server.url, org, [
      { user: "x", item: "a", name: "click", extra: { recommendation_id: ids[0] } },
      { user: "x", item: "a", name: "click", extra: { recommendation_id: ids[0] } },
      { user: "x", item: "a", name: "purchase", extra: { recommendation_id: ids[0] } },
      { user: "y", item: "b", name: "click", extra: { recommendation_id: ids[1] } },
      { user: "y", item: "b", name: "impression", family: "exposure", extra: { recommendation_id: ids[2] } },
      { user: "z", item: "c", name: "purchase", extra: { recommendation_id: trending } },
    ]);
    await eventually(
      () => served(trending),
      (q) => q.rowCount === 1,
      3000,
    );
    const r = await call(server.url, "GET", "/v1/analytics/strategies", { token: org.token });
    expect(r.status).toBe(200);
    const byStrategy = Object.fromEntries(r.body.data.strategies.map((s: { strategy: string }) => [s.strategy, s]));
    expect(byStrategy.popular).toEqual({ strategy: "popular", served: 4, clicks: 2, conversions: 1, click_through_rate: 0.5, conversion_rate: 0.25 });
    expect(byStrategy.trending).toMatchObject({ served: 1, clicks: 0, conversions: 1, conversion_rate: 1 });
    expect(byStrategy["also-viewed"]).toMatchObject({ served: 1, clicks: 0 });
  });

  it("stores the request's scenario with the served recommendation, and answers 400 naming it when malformed", async () => {
    const r = await recommend(server.url, org, { strategy: "popular", scenario: "product-page" });
    expect(r.status).toBe(200);
    const { value } = await eventually(
      () => served(r.body.data.recommendation_id),
      (q) => q.rowCount === 1,
      3000,
    );
    expect(value.rows[0].scenario).toBe("product-page");
    for (const scenario of ["Home", "", "-home", "h".repeat(65), "home page", 7]) {
      const bad = await recommend(server.url, org, { strategy: "popular", scenario });
      expect(bad.status, JSON.stringify(scenario)).toBe(400);
      expect(bad.body.error).toBe("validation_error");
      expect(bad.body.message).toContain("scenario");
    }
  });

  it("splits the report by scenario, and reports one scenario when asked", async () => {
    const shop = await newOrg(server.url);
    expect((await recommend(server.url, shop, { strategy: "popular", scenario: "cart" })).status).toBe(200);
    const home: string[] = [];
    for (let k = 0; k < 3; k++) home.push((await recommend(server.url, shop, { strategy: "popular", scenario: "home" })).body.data.recommendation_id);
    await sendEvents(server.url, shop, [{ user: "w", item: "a", name: "click", extra: { recommendation_id: home[0] } }]);
    // Served rows are written every 200 ms and events by the writers: wait until all four rows and the click are in.
    const { value: all } = await eventually(
      () => call(server.url, "GET", "/v1/analytics/strategies", { token: shop.token }),
      (r) => r.body.data?.strategies?.[0]?.served === 4 && r.body.data.strategies[0].clicks === 1,
      5000,
    );
    expect(all.body.data.strategies).toEqual([
      { strategy: "popular", served: 4, clicks: 1, conversions: 0, click_through_rate: 0.25, conversion_rate: 0 },
    ]);
    expect(all.body.data.scenarios).toEqual([
      { scenario: "home", strategy: "popular", served: 3, clicks: 1, conversions: 0, click_through_rate: 0.3333, conversion_rate: 0 },
      { scenario: "cart", strategy: "popular", served: 1, clicks: 0, conversions: 0, click_through_rate: 0, conversion_rate: 0 },
    ]);
    const onlyCart = await call(server.url, "GET", "/v1/analytics/strategies?scenario=cart", { token: shop.token });
    expect(onlyCart.body.data.strategies).toEqual([
      { strategy: "popular", served: 1, clicks: 0, conversions: 0, click_through_rate: 0, conversion_rate: 0 },
    ]);
    const bad = await call(server.url, "GET", "/v1/analytics/strategies?scenario=Cart", { token: shop.token });
    expect(bad.status).toBe(400);
  });

  it("counts only the range asked for, and only the caller's organisation", async () => {
    const past = await call(server.url, "GET", "/v1/analytics/strategies?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z", { token: org.token });
    expect(past.body.data).toEqual({ from: "2020-01-01T00:00:00.000Z", to: "2020-02-01T00:00:00.000Z", strategies: [], scenarios: [] });
    const theirs = await call(server.url, "GET", "/v1/analytics/strategies", { token: other.token });
    expect(theirs.body.data.strategies).toEqual([]);
  });

  it("answers 400 for a bad range and 401 without a dashboard token", async () => {
    const bad = await call(server.url, "GET", "/v1/analytics/strategies?from=yesterday", { token: org.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_error");
    const reversed = await call(server.url, "GET", "/v1/analytics/strategies?from=2021-01-01T00:00:00Z&to=2020-01-01T00:00:00Z", {
      token: org.token,
    });
    expect(reversed.status).toBe(400);
    expect((await call(server.url, "GET", "/v1/analytics/strategies", { apiKey: org.pk })).status).toBe(401);
  });

  it("counts a recommendation in a range starting at its millisecond and not in one ending there", async () => {
    const r = await recommend(server.url, org, { strategy: "recently-viewed", user_id: "x" });
    const { value } = await eventually(
      () => served(r.body.data.recommendation_id),
      (q) => q.rowCount === 1,
      3000,
    );
    const at: number = value.rows[0].served_at.getTime();
    const count = async (from: number, to: number) => {
      const q = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
      const res = await call(server.url, "GET", `/v1/analytics/strategies?${q}`, { token: org.token });
      return res.body.data.strategies.find((s: { strategy: string }) => s.strategy === "recently-viewed")?.served ?? 0;
    };
    expect(await count(at, at + 1)).toBe(1);
    expect(await count(at - 3_600_000, at)).toBe(0);
    expect(await count(at - 3_600_000, at + 3_600_000)).toBe(1);
  });
});
