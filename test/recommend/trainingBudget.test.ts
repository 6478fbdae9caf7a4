import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { event, eventually } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parsePrometheusText, valueOf } from "../metrics/prometheusText.js";

const TOKEN = randomBytes(24).toString("base64url");
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { METRICS_TOKEN: TOKEN, TRAINING_ENTRIES_MAX: "10000", RECOMMEND_SHARDS: "1", LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await server?.cleanup();
});

async function budgeted(): Promise<number> {
  const r = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return valueOf(parsePrometheusText(await r.text()), "recsvc_model_trainings_budgeted_total", { shard: "0" });
}

async function load(users: number, itemsEach: number): Promise<{ sk: string; pk: string }> {
  const org = await newOrg(server.url);
  const items = Array.from({ length: itemsEach }, (_, k) => ({ item_id: `b-${k}`, item_type: "product", status: "active" }));
  expect((await call(server.url, "POST", "/v1/items/upsert", { json: items, apiKey: org.sk })).status).toBe(202);
  for (let u = 0; u < users; u++) {
    const views = Array.from({ length: itemsEach }, (_, k) =>
      event({ user: `bu-${u}`, item: `b-${(k + u) % itemsEach}`, hoursAgo: (itemsEach - k) / 60 }),
    );
    expect((await call(server.url, "POST", "/v1/events/ingest", { json: views, apiKey: org.pk })).status).toBe(202);
  }
  return org;
}

describe("the training budget (TRAINING_ENTRIES_MAX)", () => {
  it("trains an organisation within the budget without cutting it, and counts a training whose set it held", async () => {
    const before = await budgeted();
    // 20 users × 100 items: 2,000 entries, within 10,000.
    const small = await load(20, 100);
    await eventually(
      () =>
        call(server.url, "POST", "/v1/recommend", {
          apiKey: small.pk,
          json: { strategy: "personalized", user_id: "bu-0", exclude_seen: false, limit: 5 },
        }),
      (r) => r.status === 200 && r.body.data.results.some((x: { reason: string }) => x.reason === "collaborative"),
      30_000,
    );
    expect(await budgeted()).toBe(before);
    // 30 users × 500 items: 15,000 entries, past 10,000: each user's row keeps their latest items.
    await load(30, 500);
    await eventually(budgeted, (n) => n > before, 60_000);
    expect(server.output()).toMatch(/recommender model trained[^\n]*rowMax/);
  });
});
