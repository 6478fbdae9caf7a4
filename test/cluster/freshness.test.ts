import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { eventually, recommend, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: what one accepts, the other recommends from. */
let p1: TestServer;
let p2: TestServer;
let org: Org;

beforeAll(async () => {
  p1 = await startServer({ env: { CLUSTER: "1" } });
  p2 = await startServer({ reuse: p1, env: { CLUSTER: "1" } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ["a", "b", "c", "d"].map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

/** The user's recently viewed items, from the user's own history: a `fallback` answer (popular items) reads as none. */
async function recentlyViewed(p: TestServer, user: string): Promise<string[]> {
  const r = await recommend(p.url, org, { strategy: "recently-viewed", user_id: user });
  expect(r.status).toBe(200);
  return r.body.data.mode === "fallback" ? [] : (r.body.data.recommended_items as string[]);
}

describe("two processes on one PostgreSQL with CLUSTER=1", () => {
  it("recommends in one process from events accepted by the other", async () => {
    const events = ["a", "b"].map((item) => viewEvent("viewer-1", item));
    expect((await call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: events })).status).toBe(202);
    const { value } = await eventually(
      () => recentlyViewed(p2, "viewer-1"),
      (items) => items.length === 2,
    );
    expect(value.sort()).toEqual(["a", "b"]);
  });

  it("stops recommending in one process an item the other made inactive", async () => {
    await call(p2.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: ["c", "d"].map((item) => viewEvent("viewer-2", item)) });
    await eventually(
      () => recentlyViewed(p1, "viewer-2"),
      (items) => items.length === 2,
    );
    expect(
      (await call(p2.url, "POST", "/v1/items/upsert", { apiKey: org.sk, json: { item_id: "c", item_type: "t", status: "inactive" } })).status,
    ).toBe(202);
    const { value } = await eventually(
      () => recentlyViewed(p1, "viewer-2"),
      (items) => !items.includes("c"),
    );
    expect(value).toEqual(["d"]);
  });

  it("merges in one process the anonymous history an identify sent to the other moved", async () => {
    await call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("anon-7", "b") });
    const identify = { user_id: "member-7", event_family: "system", event_name: "identify", previous_user_id: "anon-7" };
    expect((await call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: identify })).status).toBe(202);
    const { value } = await eventually(
      () => recentlyViewed(p2, "member-7"),
      (items) => items.includes("b"),
    );
    expect(value).toEqual(["b"]);
  });

  it("applies every batch of a burst in the other process (batches its writer threads commit at once, in any order of their ids)", async () => {
    const users = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(users.map((u) => call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent(u, "a") })));
    expect(answers.every((r) => r.status === 202)).toBe(true);
    const { value } = await eventually(
      async () => (await Promise.all(users.map((u) => recentlyViewed(p2, u)))).filter((items) => items.includes("a")).length,
      (n) => n === users.length,
    );
    expect(value).toBe(users.length);
  });
});
