import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/**
 * The hostile catalog: 2,001 items of one array attribute of 999 distinct strings (about 16 KB each),
 * half of them shared with the items of the same group (i mod 20), so that `similar` has neighbours to find.
 */
const ITEMS = 2_001;
const GROUPS = 20;
const tags = (i: number) => [...Array.from({ length: 500 }, (_, k) => `g${i % GROUPS}-${k}`), ...Array.from({ length: 499 }, (_, k) => `t${i}-${k}`)];

let server: TestServer;
let hostile: Org;
let bystander: Org;

beforeAll(async () => {
  // One recommender thread: the hostile organisation and the bystander share it.
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000", RECOMMEND_SHARDS: "1" } });
  hostile = await newOrg(server.url);
  bystander = await newOrg(server.url);
  for (let from = 0; from < ITEMS; from += 200) {
    const items = [];
    for (let i = from; i < Math.min(ITEMS, from + 200); i++) items.push({ item_id: `h${i}`, attributes: { tags: tags(i) } });
    await upsertItems(server.url, hostile, items);
  }
  await upsertItems(server.url, bystander, [
    { item_id: "boot-a", attributes: { category: "boots", brand: "trek" } },
    { item_id: "boot-b", attributes: { category: "boots", brand: "trek" } },
    { item_id: "shirt", attributes: { category: "shirts", brand: "other" } },
  ]);
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

describe("recommend on a hostile catalog", () => {
  it("answers 200 to `similar` for an item of 999 distinct tags, with the items of its group", async () => {
    const { value: r } = await eventually(
      () => recommend(server.url, hostile, { strategy: "similar", context_item_id: "h7", limit: 50 }),
      (r) => r.status === 200 && r.body.data.results.length > 0,
      30_000,
    );
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    const ids = r.body.data.recommended_items as string[];
    expect(ids).toHaveLength(50);
    expect(ids.every((id) => id !== "h7" && Number(id.slice(1)) % GROUPS === 7)).toBe(true);
  }, 60_000);

  it("answers 200 to any-of filters over the long arrays, matching exactly", async () => {
    const r = await recommend(server.url, hostile, { strategy: "new-arrivals", limit: 5, filters: { tags: ["t12-498", "nowhere"] } });
    expect(r.status).toBe(200);
    expect(r.body.data.recommended_items).toEqual(["h12"]);
  });

  it("still ranks the bystander's ordinary catalog by shared attributes", async () => {
    // A 202 means committed; the shard applies the batch a moment later (within the freshness goal).
    const { value: r } = await eventually(
      () => recommend(server.url, bystander, { strategy: "similar", context_item_id: "boot-a", limit: 2 }),
      (r) => r.status === 200 && r.body.data.mode !== "fallback",
      10_000,
    );
    expect(r.status).toBe(200);
    expect(r.body.data.recommended_items[0]).toBe("boot-b");
  });
});
