import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { orgSeq, rowCounts } from "./stored.js";

/** The shrunk counterexamples ingest.property.test.ts found, kept as examples so that they stay fixed. */
let server: TestServer;
let org: Org;
let seq: number;
beforeAll(async () => {
  server = await startServer();
  org = await newOrg(server.url);
  seq = await orgSeq(server.db(), org.orgId);
});
afterAll(async () => {
  await server?.cleanup();
});

const items = (json: unknown) => call(server.url, "POST", "/v1/items/upsert", { json, apiKey: org.sk });
const users = (json: unknown) => call(server.url, "POST", "/v1/users/upsert", { json, apiKey: org.sk });
const events = (json: unknown) => call(server.url, "POST", "/v1/events/ingest", { json, apiKey: org.pk });
const raw = (path: string, body: string, apiKey: string) => call(server.url, "POST", path, { raw: body, contentType: "application/json", apiKey });

describe("identifier length in UTF-16 code units (CONTRACT 4)", () => {
  it("answers 400 validation_error for an item_type of 255 characters and an emoji (257 code units), storing nothing", async () => {
    const before = await rowCounts(server.db(), seq);
    const r = await items([{ item_id: " ", item_type: `${" ".repeat(255)}😀`, status: "active" }]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: "validation_error",
      message: expect.stringContaining("items[0].item_type: must be at most 256 characters"),
    });
    expect(await rowCounts(server.db(), seq)).toEqual(before);
  });

  it("answers 400 for a user_id of 256 emoji (512 code units), and stores one of 128 emoji (256 code units)", async () => {
    const r = await events({ user_id: "😀".repeat(256), event_family: "engagement", event_name: "view" });
    expect([r.status, r.body.message]).toEqual([400, "event.user_id: must be at most 256 characters"]);
    const ok = await events({ user_id: "😀".repeat(128), event_family: "engagement", event_name: "view" });
    expect(ok.status).toBe(202);
    const { rows } = await server.db().query("SELECT user_id FROM events WHERE org = $1 AND user_id = $2", [seq, "😀".repeat(128)]);
    expect(rows).toHaveLength(1);
  });
});

describe("a __proto__ key in attributes, context and filters", () => {
  it("answers 400 validation_error naming the field, at the top of attributes, nested in context, in flat attributes, storing nothing", async () => {
    const before = await rowCounts(server.db(), seq);
    const sent = [
      [
        "/v1/items/upsert",
        org.sk,
        '{"item_id":"proto-item","item_type":"t","status":"active","attributes":{"__proto__":{"x":1},"k":1}}',
        "item.attributes",
      ],
      [
        "/v1/users/upsert",
        org.sk,
        '{"user_id":"proto-user","status":"active","created_at":"2024-01-01T00:00:00Z","attributes":{"__proto__":2}}',
        "user.attributes",
      ],
      [
        "/v1/events/ingest",
        org.pk,
        '{"user_id":" ","event_family":"system","event_name":"identify","previous_user_id":" ","context":{"":{"__proto__":[]}}}',
        "event.context",
      ],
    ] as const;
    for (const [path, key, body, field] of sent) {
      const r = await raw(path, body, key);
      expect([r.status, r.body.error, r.body.message]).toEqual([400, "validation_error", `${field}: must not use the key "__proto__"`]);
    }
    expect(await rowCounts(server.db(), seq)).toEqual(before);
  });

  it("answers 400 validation_error for a recommend filter named __proto__ (it was dropped, and the filter ignored)", async () => {
    const r = await raw("/v1/recommend", '{"strategy":"new-arrivals","filters":{"__proto__":2}}', org.pk);
    expect([r.status, r.body.error]).toEqual([400, "validation_error"]);
    expect(r.body.message).toContain('must not use the key "__proto__"');
  });
});

describe("UTC offsets beyond PostgreSQL's ±15:59", () => {
  const far = "2024-01-01T00:00:00+20:00";

  it("answers 400 validation_error (not 500) for created_at and timestamp with such an offset, storing nothing", async () => {
    const before = await rowCounts(server.db(), seq);
    const answers = [
      await items({ item_id: "far", item_type: "t", status: "active", created_at: far }),
      await users({ user_id: "far", status: "active", created_at: far }),
      await events({ user_id: "far", event_family: "engagement", event_name: "view", timestamp: far }),
      await events({ user_id: "far", event_family: "system", event_name: "identify", previous_user_id: "anon", timestamp: far }),
    ];
    expect(answers.map((r) => [r.status, r.body.error, r.body.message])).toEqual([
      [400, "validation_error", "item.created_at: must have a UTC offset within ±15:59"],
      [400, "validation_error", "user.created_at: must have a UTC offset within ±15:59"],
      [400, "validation_error", "event.timestamp: must have a UTC offset within ±15:59"],
      [400, "validation_error", "event.timestamp: must have a UTC offset within ±15:59"],
    ]);
    expect(await rowCounts(server.db(), seq)).toEqual(before);
  });

  it("stores the instant of an offset of -15:59", async () => {
    expect((await users({ user_id: "near", status: "active", created_at: "2024-01-01T00:00:00-15:59" })).status).toBe(202);
    const { rows } = await server.db().query("SELECT created_at FROM users WHERE org = $1 AND user_id = 'near'", [seq]);
    expect(rows[0].created_at.toISOString()).toBe("2024-01-01T15:59:00.000Z");
  });
});
