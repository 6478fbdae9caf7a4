import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { eventually, recommended, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let a: Org;
let b: Org;
beforeAll(async () => {
  // A linger gathers the test's concurrent requests into shared batches, as a busy server does.
  server = await startServer({ env: { INGEST_LINGER_MS: "50" } });
  [a, b] = [await newOrg(server.url), await newOrg(server.url)];
  // Stands in for any record the database refuses although it passed validation.
  await server.db().query("ALTER TABLE items ADD CONSTRAINT test_refuses_poison CHECK (item_id <> 'poison')");
  await server.db().query("ALTER TABLE events ADD CONSTRAINT test_refuses_poison CHECK (user_id <> 'poison')");
});
afterAll(async () => {
  await server?.cleanup();
});

describe("a request the database refuses", () => {
  it("fails alone: requests sharing its batch, of its own or another organisation, are still stored and acknowledged", async () => {
    const ids = Array.from({ length: 30 }, () => `i-${randomUUID()}`);
    const upsert = (org: Org, itemId: string) =>
      call(server.url, "POST", "/v1/items/upsert", { json: { item_id: itemId, item_type: "product", status: "active" }, apiKey: org.sk });
    const sent = await Promise.all([
      ...ids.slice(0, 15).map((id) => upsert(a, id)),
      upsert(a, "poison"),
      ...ids.slice(15).map((id) => upsert(b, id)),
    ]);
    const poison = sent[15];
    expect(poison.status).toBe(500);
    expect(poison.body.error).toBe("internal_error");
    expect(sent.filter((r) => r !== poison).map((r) => r.status)).toEqual(Array(30).fill(202));
    const stored = await server.db().query("SELECT item_id FROM items WHERE item_id = ANY($1)", [[...ids, "poison"]]);
    expect(stored.rows.map((r) => r.item_id).sort()).toEqual([...ids].sort());
  });

  it("fails alone among events too: the others sharing its COPY are stored once, acknowledged and indexed", async () => {
    await upsertItems(server.url, b, [{ item_id: "seen" }]);
    const ingest = (org: Org, userId: string) => call(server.url, "POST", "/v1/events/ingest", { json: [viewEvent(userId, "seen")], apiKey: org.pk });
    const users = Array.from({ length: 30 }, () => `u-${randomUUID()}`);
    const logged = server.output().length;
    const sent = await Promise.all([
      ...users.slice(0, 15).map((u) => ingest(a, u)),
      ingest(b, "poison"),
      ...users.slice(15).map((u) => ingest(b, u)),
    ]);
    const poison = sent[15];
    expect(poison.status).toBe(500);
    expect(poison.body.error).toBe("internal_error");
    expect(sent.filter((r) => r !== poison).map((r) => r.status)).toEqual(Array(30).fill(202));
    expect(server.output().slice(logged)).toMatch(/ingest batch refused; writing its requests one by one.*"requests":(?:[2-9]|\d\d)/);
    const stored = await server
      .db()
      .query("SELECT user_id, count(*)::int AS n FROM events WHERE user_id = ANY($1) GROUP BY user_id", [[...users, "poison"]]);
    expect(stored.rows.map((r) => [r.user_id, r.n]).sort()).toEqual(users.map((u) => [u, 1]).sort());
    const last = users[29]!;
    const { value } = await eventually(
      () => recommended(server.url, b, { strategy: "recently-viewed", user_id: last }),
      (items) => items.length > 0,
    );
    expect(value).toEqual(["seen"]);
  });
});

describe("a request the database refuses after it was acknowledged (INGEST_ACK=queued)", () => {
  let queued: TestServer;
  let org: Org;
  beforeAll(async () => {
    queued = await startServer({ env: { INGEST_ACK: "queued", INGEST_LINGER_MS: "50" } });
    org = await newOrg(queued.url);
    await queued.db().query("ALTER TABLE events ADD CONSTRAINT test_refuses_poison CHECK (user_id <> 'poison')");
  });
  afterAll(async () => {
    await queued?.cleanup();
  });

  it("is kept in ingest_refused with its records, while the others sharing its batch are stored", async () => {
    const users = Array.from({ length: 20 }, () => `u-${randomUUID()}`);
    const poison = viewEvent("poison", "item-1", { context: { page: "home" } });
    const ingest = (e: Record<string, unknown>) => call(queued.url, "POST", "/v1/events/ingest", { json: [e], apiKey: org.pk });
    const sent = await Promise.all([...users.map((u) => ingest(viewEvent(u, "item-1"))), ingest(poison)]);
    expect(sent.map((r) => r.status)).toEqual(Array(21).fill(202));
    const { value: kept } = await eventually(
      async () => (await queued.db().query("SELECT org, error, records FROM ingest_refused")).rows,
      (rows) => rows.length > 0,
    );
    const {
      rows: [{ seq }],
    } = await queued.db().query("SELECT seq FROM organisations WHERE id = $1", [org.orgId]);
    expect(kept).toHaveLength(1);
    expect(kept[0].org).toBe(seq);
    expect(kept[0].error).toMatch(/test_refuses_poison/);
    const records = JSON.parse(kept[0].records);
    expect(records.events).toEqual([
      expect.objectContaining({ event_id: poison.event_id, user_id: "poison", item_id: "item-1", context: { page: "home" } }),
    ]);
    // Acknowledged before the commit: a batch without the poison may still be on its way when the poison's is refused.
    const { value: stored } = await eventually(
      async () => (await queued.db().query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE user_id = ANY($1)", [users])).rows[0]!.n,
      (n) => n >= 20,
    );
    expect(stored).toBe(20);
  });
});
