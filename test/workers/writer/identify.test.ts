import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../../helpers/api.js";
import { event, eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../../helpers/server.js";

/** The identify rule of migration 015, run by the writer (workers/writer/identify.ts) and followed by the index. */
let server: TestServer;
const ENV = { RATE_LIMIT_MAX: "100000" };

beforeAll(async () => {
  server = await startServer({ env: ENV });
});
afterAll(async () => {
  await server?.cleanup();
});

async function catalog(): Promise<Org> {
  const org = await newOrg(server.url);
  await upsertItems(
    server.url,
    org,
    ["i1", "i2", "i3", "i4", "i5", "i6"].map((item_id) => ({ item_id, created_at: "2024-01-01T00:00:00Z" })),
  );
  return org;
}

const identify = (user: string, previous: string, hoursAgo = 0): EventSpec => ({
  user,
  name: "identify",
  family: "system",
  hoursAgo,
  extra: { previous_user_id: previous },
});

async function aliases(org: Org): Promise<Array<{ previous_user_id: string; user_id: string }>> {
  const { rows } = await server
    .db()
    .query(
      "SELECT previous_user_id, user_id FROM identity_aliases a JOIN organisations o ON o.seq = a.org WHERE o.id = $1 ORDER BY previous_user_id",
      [org.orgId],
    );
  return rows;
}

async function answer(org: Org, strategy: string, userId: string): Promise<{ mode: string; items: string[] }> {
  const r = await recommend(server.url, org, { strategy, user_id: userId, limit: 100 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { mode: r.body.data.mode, items: r.body.data.recommended_items };
}

/** Waits for `userId`'s own purchase of `marker` (sent after what is under test, so everything before it is applied). */
async function buyAgainAfter(org: Org, userId: string, marker: string): Promise<string[]> {
  await sendEvents(server.url, org, [{ user: userId, item: marker, name: "purchase" }]);
  const { value } = await eventually(
    () => answer(org, "buy-again", userId),
    (a) => a.items.includes(marker),
    5000,
  );
  expect(value.items).toContain(marker);
  return value.items;
}

describe("identify without identity verification", () => {
  it("never moves a user the organisation upserted: the victim keeps its history, the attacker's buy-again shows none of it", async () => {
    const org = await catalog();
    const put = await call(server.url, "POST", "/v1/users/upsert", {
      apiKey: org.sk,
      json: { user_id: "victim", status: "active", created_at: "2024-01-01T00:00:00Z" },
    });
    expect(put.status).toBe(202);
    await sendEvents(server.url, org, [{ user: "victim", item: "i1", name: "purchase", hoursAgo: 1 }]);
    await sendEvents(server.url, org, [identify("attacker", "victim")]);
    expect(await buyAgainAfter(org, "attacker", "i2")).toEqual(["i2"]);
    expect(await aliases(org)).toEqual([]);
    // Later events of the victim stay the victim's too.
    await sendEvents(server.url, org, [{ user: "victim", item: "i3", name: "purchase" }]);
    expect(await buyAgainAfter(org, "victim", "i4")).toEqual(expect.arrayContaining(["i1", "i3", "i4"]));
    expect((await answer(org, "buy-again", "attacker")).items).toEqual(["i2"]);
  });

  it("never moves an id that absorbed another, nor an id already merged into a user", async () => {
    const org = await catalog();
    await sendEvents(server.url, org, [
      { user: "anon-a", item: "i1", name: "purchase", hoursAgo: 2 },
      { user: "member", item: "i2", name: "purchase", hoursAgo: 1 },
    ]);
    await sendEvents(server.url, org, [identify("member", "anon-a")]);
    await sendEvents(server.url, org, [identify("attacker", "member")]);
    await sendEvents(server.url, org, [identify("attacker", "anon-a")]);
    expect(await buyAgainAfter(org, "attacker", "i3")).toEqual(["i3"]);
    expect(await aliases(org)).toEqual([{ previous_user_id: "anon-a", user_id: "member" }]);
    expect((await answer(org, "buy-again", "member")).items.sort()).toEqual(["i1", "i2"]);
  });

  it("still merges an anonymous id into the user that signs in, and an id merged into a merged id joins its user", async () => {
    const org = await catalog();
    await sendEvents(server.url, org, [
      { user: "anon-b", item: "i1", name: "purchase", hoursAgo: 2 },
      { user: "anon-c", item: "i2", name: "purchase", hoursAgo: 1 },
    ]);
    await sendEvents(server.url, org, [identify("member", "anon-b")]);
    // anon-b already stands for member: anon-c joins member, and the alias says so (no chain).
    await sendEvents(server.url, org, [identify("anon-b", "anon-c")]);
    expect((await buyAgainAfter(org, "member", "i3")).sort()).toEqual(["i1", "i2", "i3"]);
    expect(await aliases(org)).toEqual([
      { previous_user_id: "anon-b", user_id: "member" },
      { previous_user_id: "anon-c", user_id: "member" },
    ]);
  });
});

describe("identify at the request's limit", () => {
  it("settles 10,000 identifies of one request, each one, refusing the ones that would move an id twice", async () => {
    const org = await catalog();
    const n = 10_000;
    // Every id is merged once, then the same ids are claimed again by others: half accepted, half refused.
    const specs = [
      ...Array.from({ length: n / 2 }, (_, i) => identify(`user-${i}`, `anon-${i}`)),
      ...Array.from({ length: n / 2 }, (_, i) => identify("attacker", `anon-${i}`)),
    ];
    await sendEvents(server.url, org, specs.slice(0, 1000));
    const r = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: specs.slice(1000).map(event) });
    expect(r.status).toBe(202);
    const stored = await aliases(org);
    expect(stored).toHaveLength(n / 2);
    expect(stored.every((a) => a.user_id === a.previous_user_id.replace("anon-", "user-"))).toBe(true);
  });
});

describe("identify decisions after a restart", () => {
  it("settles a cycle and two identifies of one id the same way live and after a restart, whatever their timestamps", async () => {
    const org = await catalog();
    await sendEvents(server.url, org, [
      { user: "a", item: "i1", hoursAgo: 5 },
      { user: "b", item: "i2", hoursAgo: 4 },
      { user: "x", item: "i3", hoursAgo: 5 },
      { user: "p", item: "i4", hoursAgo: 4 },
      { user: "q", item: "i5", hoursAgo: 3 },
    ]);
    // Sent in this order, stamped in the other: the first committed wins.
    await sendEvents(server.url, org, [identify("b", "a", 1)]);
    await sendEvents(server.url, org, [identify("a", "b", 2)]);
    await sendEvents(server.url, org, [identify("p", "x", 1)]);
    await sendEvents(server.url, org, [identify("q", "x", 2)]);
    await sendEvents(server.url, org, [{ user: "marker", item: "i6" }]);
    await eventually(
      () => answer(org, "recently-viewed", "marker"),
      (a) => a.items.includes("i6"),
      5000,
    );
    const ids = ["a", "b", "x", "p", "q"];
    const live = await Promise.all(ids.map((id) => answer(org, "recently-viewed", id)));
    expect(Object.fromEntries(ids.map((id, k) => [id, live[k]!.items]))).toEqual({
      a: ["i2", "i1"],
      b: ["i2", "i1"],
      x: ["i4", "i3"],
      p: ["i4", "i3"],
      q: ["i5"],
    });
    expect(await server.stop()).toBe(0);
    server = await startServer({ reuse: server, env: ENV });
    const restarted = await Promise.all(ids.map((id) => answer(org, "recently-viewed", id)));
    expect(restarted).toEqual(live);
  });
});

describe("identify decisions across processes (CLUSTER=1)", () => {
  it("skips a refused identify in the other process's index too", async () => {
    const env = { ...ENV, CLUSTER: "1" };
    const p1 = await startServer({ env });
    const p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
    try {
      const org = await newOrg(p1.url);
      await upsertItems(p1.url, org, [{ item_id: "i1" }, { item_id: "i2" }]);
      const put = await call(p1.url, "POST", "/v1/users/upsert", {
        apiKey: org.sk,
        json: { user_id: "victim", status: "active", created_at: "2024-01-01T00:00:00Z" },
      });
      expect(put.status).toBe(202);
      await sendEvents(p1.url, org, [{ user: "victim", item: "i1", name: "purchase", hoursAgo: 1 }]);
      // The user's own purchases; an empty record's answer is the fallbacks' (new arrivals here), which says nothing.
      const buyAgain = async (url: string, user: string) => {
        const data = (await recommend(url, org, { strategy: "buy-again", user_id: user })).body.data;
        return data?.mode === "fallback" ? [] : (data?.recommended_items as string[] | undefined);
      };
      // p2 holds the organisation now: what follows reaches it through the batch log, not a load.
      await eventually(
        () => buyAgain(p2.url, "victim"),
        (items) => items?.includes("i1") === true,
        5000,
      );
      await sendEvents(p1.url, org, [identify("attacker", "victim")]);
      await sendEvents(p1.url, org, [{ user: "attacker", item: "i2", name: "purchase" }]);
      const { value } = await eventually(
        () => buyAgain(p2.url, "attacker"),
        (items) => items?.includes("i2") === true,
        5000,
      );
      expect(value).toEqual(["i2"]);
      expect(await buyAgain(p2.url, "victim")).toEqual(["i1"]);
    } finally {
      await p2.stop();
      await p1.cleanup();
    }
  }, 120_000);
});
