import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
beforeAll(async () => {
  server = await startServer();
  org = await newOrg(server.url);
});
afterAll(async () => {
  await server?.cleanup();
});

const events = (json: unknown, opts: { contentType?: string } = {}) =>
  call(server.url, "POST", "/v1/events/ingest", { json, apiKey: org.pk, ...opts });
const count = async (sql: string, values: unknown[]) => Number((await server.db().query(sql, values)).rows[0].n);
const storedEvents = (userId: string) => count("SELECT count(*) AS n FROM events WHERE user_id = $1", [userId]);

describe("events ingest", () => {
  it("answers 202 with the ingestion envelope and stores one event sent as an object", async () => {
    const user = `u-${randomUUID()}`;
    const r = await events(viewEvent(user, "i1"));
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ success: true, message: expect.stringMatching(/1 events accepted/), data: { accepted: 1 }, error: null });
    expect(await storedEvents(user)).toBe(1);
  });

  it("stores every event of an array, with its weight, and assigns an event_id when omitted", async () => {
    const user = `u-${randomUUID()}`;
    const batch = [
      { user_id: user, event_family: "conversion", event_name: "purchase", item_id: "i1" },
      { user_id: user, event_family: "engagement", event_name: "custom_thing", item_id: null },
    ];
    const r = await events(batch);
    expect(r.body.data.accepted).toBe(2);
    const { rows } = await server.db().query("SELECT event_name, weight, event_id FROM events WHERE user_id = $1 ORDER BY event_name", [user]);
    expect(rows.map((x) => [x.event_name, x.weight])).toEqual([
      ["custom_thing", 1],
      ["purchase", 5],
    ]);
    expect(rows[0].event_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("stores ids and contexts with backslashes, tabs, line breaks and non-ASCII text exactly as sent", async () => {
    const user = `u\\${randomUUID()} ünïcødé 用户 🎉`;
    const context = { note: 'tab\there\nnew\rline \\ "quoted"', n: [1, 2.5, -3e-7], deep: { ok: true, none: null } };
    const sent = [
      { user_id: user, event_family: "engagement", event_name: "view", item_id: "it\\em/1", context },
      { user_id: user, event_family: "engagement", event_name: "click", item_id: "item-2", recommendation_id: "rec\\1" },
    ];
    expect((await events(sent)).status).toBe(202);
    const { rows } = await server
      .db()
      .query("SELECT item_id, recommendation_id, context FROM events WHERE user_id = $1 ORDER BY event_name DESC", [user]);
    expect(rows).toEqual([
      { item_id: "it\\em/1", recommendation_id: null, context },
      { item_id: "item-2", recommendation_id: "rec\\1", context: null },
    ]);
  });

  it("stores a duplicate event_id once and still counts it as accepted", async () => {
    const user = `u-${randomUUID()}`;
    const e = viewEvent(user, "i1");
    expect((await events([e, e])).body.data.accepted).toBe(2);
    expect((await events(e)).body.data.accepted).toBe(1);
    expect(await storedEvents(user)).toBe(1);
  });

  it("keeps the client's timestamp and records identify as an alias", async () => {
    const anon = `anon-${randomUUID()}`;
    const user = `u-${randomUUID()}`;
    const r = await events({
      user_id: user,
      event_family: "system",
      event_name: "identify",
      previous_user_id: anon,
      timestamp: "2024-05-01T10:00:00+02:00",
    });
    expect(r.status).toBe(202);
    const alias = await server.db().query("SELECT user_id FROM identity_aliases WHERE previous_user_id = $1", [anon]);
    expect(alias.rows).toEqual([{ user_id: user }]);
    const ev = await server.db().query("SELECT occurred_at FROM events WHERE user_id = $1", [user]);
    expect(new Date(ev.rows[0].occurred_at).toISOString()).toBe("2024-05-01T08:00:00.000Z");
  });

  it("rejects the whole request when one record is invalid, naming each failing index and field", async () => {
    const user = `u-${randomUUID()}`;
    const batch = [
      viewEvent(user, "a"),
      viewEvent(user, "b"),
      viewEvent(user, "c"),
      { ...viewEvent(user, "d"), event_family: "bogus" },
      { ...viewEvent(user, "e"), colour: "red" },
    ];
    const r = await events(batch);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
    expect(r.body.message).toContain("events[3].event_family");
    expect(r.body.message).toContain("events[4]");
    expect(r.body.message).toContain("colour");
    expect(await storedEvents(user)).toBe(0);
  });

  it.each([
    ["identify without previous_user_id", { user_id: "u", event_family: "system", event_name: "identify" }, "event.previous_user_id"],
    ["an upper-case event_name", { user_id: "u", event_family: "engagement", event_name: "View" }, "event.event_name"],
    ["a 257-character user_id", { user_id: "x".repeat(257), event_family: "engagement", event_name: "view" }, "event.user_id"],
    ["a control character in item_id", { user_id: "u", event_family: "engagement", event_name: "view", item_id: "a\u0007b" }, "event.item_id"],
    [
      "an unpaired surrogate in user_id (PostgreSQL could not store it)",
      { user_id: "a\ud800b", event_family: "engagement", event_name: "view" },
      "event.user_id",
    ],
    [
      "a lone low surrogate ending recommendation_id",
      { user_id: "u", event_family: "engagement", event_name: "view", recommendation_id: "r\udc00" },
      "event.recommendation_id",
    ],
    ["an event_id that is not a UUID", { user_id: "u", event_family: "engagement", event_name: "view", event_id: "123" }, "event.event_id"],
    [
      "a timestamp more than 24 h ahead",
      { user_id: "u", event_family: "engagement", event_name: "view", timestamp: new Date(Date.now() + 25 * 3600e3).toISOString() },
      "event.timestamp",
    ],
    ["a timestamp in year 0", { user_id: "u", event_family: "engagement", event_name: "view", timestamp: "0000-06-01T00:00:00Z" }, "event.timestamp"],
    [
      "a timestamp without a time zone",
      { user_id: "u", event_family: "engagement", event_name: "view", timestamp: "2024-01-01T00:00:00" },
      "event.timestamp",
    ],
    [
      "a context over 32 KiB",
      { user_id: "u", event_family: "engagement", event_name: "view", context: { blob: "x".repeat(33 * 1024) } },
      "event.context",
    ],
    ["a missing user_id", { event_family: "engagement", event_name: "view" }, "event.user_id"],
  ])("answers 400 validation_error for %s", async (_name, body, field) => {
    const r = await events(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
    expect(r.body.message).toContain(field);
  });

  it("answers 400 validation_error for an empty array or more than 10,000 events", async () => {
    expect((await events([])).body.error).toBe("validation_error");
    const many = Array.from({ length: 10_001 }, () => ({ user_id: "u", event_family: "engagement", event_name: "view" }));
    const r = await events(many);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/10000|10,000/);
  });

  it("answers 413 payload_too_large for a body over 5 MiB", async () => {
    const r = await call(server.url, "POST", "/v1/events/ingest", {
      raw: "x".repeat(5 * 1024 * 1024 + 1),
      contentType: "application/json",
      apiKey: org.pk,
    });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe("payload_too_large");
  });

  it("answers 415 unsupported_media_type for a body that is not application/json, and accepts a charset", async () => {
    const r = await call(server.url, "POST", "/v1/events/ingest", {
      raw: JSON.stringify(viewEvent("u", "i")),
      contentType: "text/plain",
      apiKey: org.pk,
    });
    expect(r.status).toBe(415);
    expect(r.body.error).toBe("unsupported_media_type");
    const ok = await events(viewEvent("u", "i"), { contentType: "application/json; charset=utf-8" });
    expect(ok.status).toBe(202);
  });

  it("answers 400 invalid_json for a body that is not JSON", async () => {
    const r = await call(server.url, "POST", "/v1/events/ingest", { raw: "{not json", contentType: "application/json", apiKey: org.pk });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("invalid_json");
  });
});

describe("item and user upserts", () => {
  const items = (json: unknown) => call(server.url, "POST", "/v1/items/upsert", { json, apiKey: org.sk });
  const users = (json: unknown) => call(server.url, "POST", "/v1/users/upsert", { json, apiKey: org.sk });

  it("upserts items by id, from an object or an array, replacing their fields", async () => {
    const id = `i-${randomUUID()}`;
    const first = await items({
      item_id: id,
      item_type: "product",
      status: "active",
      attributes: { price: 10, brand: "A" },
      created_at: "2024-01-01T00:00:00Z",
    });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ success: true, message: expect.stringMatching(/items accepted/), data: { accepted: 1 }, error: null });
    expect((await items([{ item_id: id, item_type: "article", status: "active", attributes: { price: 12 } }])).body.data.accepted).toBe(1);
    const { rows } = await server.db().query("SELECT item_type, status, attributes, created_at FROM items WHERE item_id = $1", [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ item_type: "article", status: "active", attributes: { price: 12 } });
    expect(new Date(rows[0].created_at).toISOString()).toBe("2024-01-01T00:00:00.000Z");
  });

  it("keeps every status change of an item", async () => {
    const id = `i-${randomUUID()}`;
    for (const status of ["active", "inactive", "active", "deleted"]) {
      expect((await items({ item_id: id, item_type: "product", status })).status).toBe(202);
    }
    const { rows } = await server.db().query("SELECT old_status, new_status FROM status_changes WHERE kind = 'item' AND id = $1 ORDER BY at", [id]);
    expect(rows.map((r) => `${r.old_status}->${r.new_status}`)).toEqual(["null->active", "active->inactive", "inactive->active", "active->deleted"]);
    expect((await server.db().query("SELECT status FROM items WHERE item_id = $1", [id])).rows[0].status).toBe("deleted");
  });

  it("lets the last record win when one request names an item twice", async () => {
    const id = `i-${randomUUID()}`;
    const r = await items([
      { item_id: id, item_type: "product", status: "active" },
      { item_id: id, item_type: "product", status: "inactive" },
    ]);
    expect(r.body.data.accepted).toBe(2);
    expect((await server.db().query("SELECT status FROM items WHERE item_id = $1", [id])).rows[0].status).toBe("inactive");
  });

  it("upserts users and requires created_at and a known status", async () => {
    const id = `user-${randomUUID()}`;
    expect((await users({ user_id: id, status: "active", created_at: "2023-06-01T00:00:00Z", attributes: { plan: "pro" } })).status).toBe(202);
    expect((await users({ user_id: id, status: "inactive", created_at: "2023-06-01T00:00:00Z" })).status).toBe(202);
    const { rows } = await server.db().query("SELECT status FROM users WHERE user_id = $1", [id]);
    expect(rows).toEqual([{ status: "inactive" }]);
    const missing = await users({ user_id: id, status: "active" });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("user.created_at");
    const badStatus = await users([{ user_id: id, status: "gone", created_at: "2023-06-01T00:00:00Z" }]);
    expect(badStatus.body.message).toContain("users[0].status");
  });

  it("rejects unknown top-level fields of items and keeps attributes free-form", async () => {
    const r = await items({ item_id: "x", item_type: "product", status: "active", titel: "typo" });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("titel");
    const free = await items({
      item_id: `i-${randomUUID()}`,
      item_type: "product",
      status: "active",
      attributes: { anything: { nested: [1, "two"] } },
    });
    expect(free.status).toBe(202);
  });

  it("answers 400 for attributes that PostgreSQL's jsonb cannot hold (NUL, an unpaired surrogate)", async () => {
    const r = await items({ item_id: "x", item_type: "product", status: "active", attributes: { bad: "a\u0000b" } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("item.attributes");
    const surrogate = await items({ item_id: "x", item_type: "product", status: "active", attributes: { bad: "\ud800" } });
    expect(surrogate.status).toBe(400);
    const after = await items({ item_id: `i-${randomUUID()}`, item_type: "product", status: "active" });
    expect(after.status).toBe(202);
  });

  it("answers 400 for attributes or a context nested more than 100 levels deep, and keeps serving", async () => {
    const arrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
    // `attributes` is level 1: 99 arrays inside it make 100 levels, the most allowed.
    const item = (levels: number) =>
      `{"item_id":"i-${randomUUID()}","item_type":"product","status":"active","attributes":{"deep":${arrays(levels - 1)}}}`;
    const raw = (path: string, body: string, apiKey: string) =>
      call(server.url, "POST", path, { raw: body, contentType: "application/json", apiKey });
    expect((await raw("/v1/items/upsert", item(100), org.sk)).status).toBe(202);
    const over = await raw("/v1/items/upsert", item(101), org.sk);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ success: false, message: expect.stringContaining("item.attributes"), error: "validation_error" });
    // 3,000 levels (6 KB) once overflowed msgpackr's stack while the batch was packed, and ended the process.
    const event = `{"user_id":"u-${randomUUID()}","event_family":"engagement","event_name":"view","context":{"deep":${arrays(3000)}}}`;
    const deep = await raw("/v1/events/ingest", event, org.pk);
    expect(deep.status).toBe(400);
    expect(deep.body.message).toContain("event.context");
    expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
  });
});
