import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL; p2 is killed and started again while p1 takes data. */
let p1: TestServer;
let p2: TestServer;
let org: Org;
let p2Port: number;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "100000" };

beforeAll(async () => {
  p2Port = await freePort();
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(p2Port) } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ["a", "b", "c", "d", "e"].map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

async function readyz(url: string): Promise<number | undefined> {
  try {
    return (await fetch(`${url}/readyz`)).status;
  } catch {
    return undefined; // not listening yet
  }
}

/** The user's recently viewed items from the user's own history, sorted; a fallback answer reads as none. */
async function recentlyViewed(url: string, user: string): Promise<string[]> {
  const r = await recommend(url, org, { strategy: "recently-viewed", user_id: user, limit: 20 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.mode === "fallback" ? [] : [...(r.body.data.recommended_items as string[])].sort();
}

describe("a process restarted while another takes data (CLUSTER=1)", () => {
  it("answers /readyz 200 only once its recommendations hold everything the other process acknowledged before the restart", async () => {
    await sendEvents(p1.url, org, [
      { user: "u1", item: "a" },
      { user: "u1", item: "b" },
    ]);
    await p2.kill();

    // While p2 is down, p1 takes events, a new item, a hide and an identify.
    await sendEvents(p1.url, org, [
      { user: "u2", item: "c" },
      { user: "u2", item: "d" },
      { user: "anon-3", item: "e" },
    ]);
    await upsertItems(p1.url, org, [{ item_id: "f" }]);
    await sendEvents(p1.url, org, [{ user: "u4", item: "f" }]);
    const hide = await call(p1.url, "POST", "/v1/items/upsert", { apiKey: org.sk, json: { item_id: "a", item_type: "product", status: "inactive" } });
    expect(hide.status).toBe(202);
    const identify = { user_id: "member-3", event_family: "system", event_name: "identify", previous_user_id: "anon-3" };
    expect((await call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: identify })).status).toBe(202);

    // p1 keeps taking events while p2 starts, so that p2 loads under ingest.
    let busy = true;
    const background = (async () => {
      for (let k = 0; busy; k++) await sendEvents(p1.url, org, [{ user: `busy-${k % 50}`, item: "b" }]);
    })();
    const url = `http://127.0.0.1:${p2Port}`;
    const restarting = startServer({ reuse: p1, env: { ...env, PORT: String(p2Port) } });
    let status: number | undefined;
    const deadline = Date.now() + 120_000;
    while ((status = await readyz(url)) !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    expect(status).toBe(200);
    // Read at once: the first moment /readyz said ready.
    const [u1, u2, u4, member] = await Promise.all(["u1", "u2", "u4", "member-3"].map((u) => recentlyViewed(url, u)));
    busy = false;
    p2 = await restarting;
    await background;

    expect({ u1, u2, u4, member }).toEqual({ u1: ["b"], u2: ["c", "d"], u4: ["f"], member: ["e"] });
  });
});
