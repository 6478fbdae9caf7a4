import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: a user erased through one leaves the other's index, and a third that starts later. */
let p1: TestServer;
let p2: TestServer;
let org: Org;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "100000" };

beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ["a", "b", "c"].map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

/** The user's recently viewed items, from their own history: a `fallback` answer reads as none. */
async function recentlyViewed(p: TestServer, user: string): Promise<string[]> {
  const r = await recommend(p.url, org, { strategy: "recently-viewed", user_id: user });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.mode === "fallback" ? [] : [...(r.body.data.recommended_items as string[])].sort();
}

describe("erasure with two processes (CLUSTER=1)", () => {
  it("takes a user erased through one process out of the other's recommendations, and out of a process started after", async () => {
    await sendEvents(p1.url, org, [
      { user: "gone", item: "a" },
      { user: "gone", item: "b" },
      { user: "stays", item: "c" },
    ]);
    for (const [user, items] of [
      ["gone", ["a", "b"]],
      ["stays", ["c"]],
    ] as const) {
      const seen = await eventually(
        () => recentlyViewed(p2, user),
        (v) => v.length === items.length,
      );
      expect(seen.value).toEqual(items);
    }

    const r = await call(p2.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["gone"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(await recentlyViewed(p2, "gone")).toEqual([]);
    const other = await eventually(
      () => recentlyViewed(p1, "gone"),
      (v) => v.length === 0,
    );
    expect(other.value).toEqual([]);
    expect(await recentlyViewed(p1, "stays")).toEqual(["c"]);

    const id = r.body.data.erasure_id as string;
    const done = await eventually(
      () => call(p1.url, "GET", `/v1/users/erase/${id}`, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      30_000,
    );
    expect(done.value.body.data.deleted).toMatchObject({ events: 2 });
    const left = await p1.db().query("SELECT count(*)::int AS n FROM events WHERE user_id = 'gone'");
    expect(left.rows[0].n).toBe(0);

    // A process that starts now reads what is left in PostgreSQL: nothing of the user.
    await p2.stop();
    p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
    expect(await recentlyViewed(p2, "gone")).toEqual([]);
    expect(await recentlyViewed(p2, "stays")).toEqual(["c"]);
  }, 120_000);
});
