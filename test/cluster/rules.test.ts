import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: a rule changed through one applies in the other within a second. */
let p1: TestServer;
let p2: TestServer;
let org: Org;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "100000" };
const ITEMS = ["i0", "i1", "i2", "i3", "i4"];

async function first(p: TestServer, scenario = "default"): Promise<{ item_id: string; reason: string } | undefined> {
  const r = await recommend(p.url, org, { strategy: "popular", limit: 5, scenario });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.results[0];
}

beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ITEMS.map((item_id) => ({ item_id })),
  );
  // i0 most viewed, i4 least.
  const events: EventSpec[] = [];
  ITEMS.forEach((item, k) => {
    for (let u = 0; u < 10 - 2 * k; u++) events.push({ user: `u${u}`, item });
  });
  await sendEvents(p1.url, org, events);
  for (const p of [p1, p2]) {
    const ready = await eventually(
      () => first(p),
      (x) => x?.item_id === "i0",
      20_000,
    );
    expect(ready.value?.item_id).toBe("i0");
  }
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

describe("rules with two processes (CLUSTER=1)", () => {
  it("applies a rule created, changed and deleted through one process in the other within a second", async () => {
    const rule = { name: "last first", enabled: true, action: "pin", position: 1, items: { item_id: ["i4"] } };
    const created = await call(p1.url, "POST", "/v1/rules", { apiKey: org.sk, json: rule });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await first(p1))?.item_id).toBe("i4");
    const pinned = await eventually(
      () => first(p2),
      (x) => x?.item_id === "i4",
      3000,
    );
    expect(pinned.value).toEqual(expect.objectContaining({ item_id: "i4", reason: "pinned:last first" }));
    expect(pinned.ms).toBeLessThan(1000);

    // Changed through the other process: limited to a scenario, so the default one is back to i0.
    const id = created.body.data.rule_id as string;
    const changed = await call(p2.url, "PUT", `/v1/rules/${id}`, { apiKey: org.sk, json: { ...rule, scenarios: ["home"] } });
    expect(changed.status).toBe(200);
    const moved = await eventually(
      () => first(p1),
      (x) => x?.item_id === "i0",
      3000,
    );
    expect(moved.ms).toBeLessThan(1000);
    expect((await first(p1, "home"))?.item_id).toBe("i4");

    expect((await call(p1.url, "DELETE", `/v1/rules/${id}`, { apiKey: org.sk })).status).toBe(200);
    const gone = await eventually(
      () => first(p2, "home"),
      (x) => x?.item_id === "i0",
      3000,
    );
    expect(gone.ms).toBeLessThan(1000);
  }, 60_000);

  it("starts a process with the rules already stored", async () => {
    const created = await call(p1.url, "POST", "/v1/rules", {
      apiKey: org.sk,
      json: { name: "no i0", enabled: true, action: "block", items: { item_id: ["i0"] } },
    });
    expect(created.status).toBe(201);
    await p2.stop();
    p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
    expect((await first(p2))?.item_id).toBe("i1");
  }, 120_000);
});
