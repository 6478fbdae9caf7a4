import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
const item = { item_id: "i-1", item_type: "product", status: "active" };

/** CLUSTER=1: the revocation tests start a second process on this database, and processes that share one must all have it. */
const env = { CLUSTER: "1" };

beforeAll(async () => {
  server = await startServer({ env });
  org = await newOrg(server.url);
});
afterAll(async () => {
  await server?.cleanup();
});

const ingest = (apiKey: string | undefined, headers: Record<string, string> = {}) =>
  call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u1", "i1"), apiKey, headers });

describe("API-key authentication", () => {
  it("answers 401 missing_api_key without X-API-KEY, even with an Authorization header", async () => {
    const r = await ingest(undefined, { authorization: `Bearer ${org.pk}` });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, message: expect.any(String), error: "missing_api_key" });
  });

  it("answers 401 invalid_api_key for a key without the svc_pk_/svc_sk_ prefix", async () => {
    const r = await ingest(`Bearer ${org.pk}`);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_api_key");
  });

  it("answers 401 invalid_api_key for a well-formed key that never existed", async () => {
    const r = await ingest("svc_pk_" + "x".repeat(40));
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_api_key");
  });

  it("answers 403 wrong_key_type naming the publishable key when a secret key ingests events", async () => {
    const r = await ingest(org.sk);
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("wrong_key_type");
    expect(r.body.message).toMatch(/publishable/);
  });

  it("answers 403 wrong_key_type naming the secret key when a publishable key upserts items or users", async () => {
    const items = await call(server.url, "POST", "/v1/items/upsert", { json: item, apiKey: org.pk });
    expect(items.status).toBe(403);
    expect(items.body.error).toBe("wrong_key_type");
    expect(items.body.message).toMatch(/secret/);
    const users = await call(server.url, "POST", "/v1/users/upsert", {
      json: { user_id: "u", status: "active", created_at: "2024-01-01T00:00:00Z" },
      apiKey: org.pk,
    });
    expect(users.status).toBe(403);
    expect(users.body.error).toBe("wrong_key_type");
  });

  it("accepts the publishable key on events and the secret key on upserts", async () => {
    expect((await ingest(org.pk)).status).toBe(202);
    expect((await call(server.url, "POST", "/v1/items/upsert", { json: item, apiKey: org.sk })).status).toBe(202);
  });

  it("carries the RateLimit headers on every key-authenticated response, errors included", async () => {
    const answers = [await ingest(org.pk), await ingest(org.sk), await call(server.url, "POST", "/v1/events/ingest", { json: [], apiKey: org.pk })];
    for (const r of answers) {
      expect(r.headers.get("ratelimit-limit")).toBe("1000");
      expect(r.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
      expect(r.headers.get("ratelimit-reset")).toMatch(/^[1-9]\d*$/);
      expect(r.headers.get("ratelimit-policy")).toBe("1000;w=900");
      expect(r.headers.get("access-control-expose-headers")).toContain("RateLimit-Remaining");
    }
    // One organisation, one window: each request, refused or not, takes one from what remains.
    const remaining = answers.map((r) => Number(r.headers.get("ratelimit-remaining")));
    expect(remaining).toEqual([remaining[0], remaining[0]! - 1, remaining[0]! - 2]);
    expect(remaining[0]).toBeLessThan(1000);
  });
});

describe("unknown keys", () => {
  it("checks at most 16 unknown keys against the database at once and answers 503 unavailable beyond", async () => {
    const blocker = await server.db().connect();
    try {
      // Holding key_pairs makes every lookup wait, so the lookups in flight pile up deterministically.
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE key_pairs IN ACCESS EXCLUSIVE MODE");
      const made = Array.from({ length: 20 }, (_, i) => `svc_pk_${String(i).padStart(40, "z")}`);
      const answered: Array<[number, string]> = [];
      const pending = made.map((key) => ingest(key).then((r) => answered.push([r.status, r.body.error])));
      for (let waited = 0; answered.length < 4 && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200)); // room for a fifth answer, which must not come
      expect(answered).toEqual(Array(4).fill([503, "unavailable"]));
      await blocker.query("ROLLBACK");
      await Promise.all(pending);
      expect(answered.slice(4)).toEqual(Array(16).fill([401, "invalid_api_key"]));
    } finally {
      await blocker.query("ROLLBACK").catch(() => undefined);
      blocker.release();
    }
  });
});

describe("revocation", () => {
  it("answers 401 revoked_api_key for both keys of a pair at once after it is revoked", async () => {
    const o = await newOrg(server.url);
    expect((await ingest(o.pk)).status).toBe(202);
    const revoke = await call(server.url, "POST", `/v1/keys/${o.keyPairId}/revoke`, { token: o.token });
    expect(revoke.status).toBe(200);
    const pk = await ingest(o.pk);
    expect(pk.status).toBe(401);
    expect(pk.body.error).toBe("revoked_api_key");
    const sk = await call(server.url, "POST", "/v1/items/upsert", { json: item, apiKey: o.sk });
    expect(sk.status).toBe(401);
    expect(sk.body.error).toBe("revoked_api_key");
  });

  it("takes effect within a second in another server process on the same database", async () => {
    const other = await startServer({ reuse: server, env });
    try {
      const o = await newOrg(server.url);
      const viaOther = () => call(other.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: o.pk });
      expect((await viaOther()).status).toBe(202); // now cached in the other process
      const revokedAt = Date.now();
      expect((await call(server.url, "POST", `/v1/keys/${o.keyPairId}/revoke`, { token: o.token })).status).toBe(200);
      let status = 202;
      while (status === 202 && Date.now() - revokedAt < 3000) {
        status = (await viaOther()).status;
        if (status === 202) await new Promise((r) => setTimeout(r, 25));
      }
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(1000);
    } finally {
      await other.stop();
    }
  });

  it("knows a key generated by another process on the same database", async () => {
    const other = await startServer({ reuse: server, env });
    try {
      const o = await newOrg(server.url);
      const r = await call(other.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: o.pk });
      expect(r.status).toBe(202);
    } finally {
      await other.stop();
    }
  });
});
