import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { userHash, verifyIdentities } from "../helpers/identity.js";
import { event, eventually, recommend, sendEvents, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Identity verification (CONTRACT 7) on a real server: what a publishable key can and cannot do once it is on. */
let server: TestServer;
let org: Org;
let secret: string;

const hashOf = (userId: string, key = secret) => userHash(key, userId);

function ingest(o: Org, json: unknown) {
  return call(server.url, "POST", "/v1/events/ingest", { apiKey: o.pk, json });
}

const identify = (user: string, previous: string, extra: Record<string, unknown> = {}) =>
  event({ user, name: "identify", family: "system", extra: { previous_user_id: previous, ...extra } });

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  await upsertItems(
    server.url,
    org,
    ["i1", "i2", "i3"].map((item_id) => ({ item_id, created_at: "2024-01-01T00:00:00Z" })),
  );
  await sendEvents(server.url, org, [
    { user: "alice", item: "i1", name: "purchase" },
    { user: "alice", item: "i2" },
  ]);
  secret = await verifyIdentities(server.url, org);
});
afterAll(async () => {
  await server?.cleanup();
});

async function storedIdentifies(previous: string): Promise<number> {
  const { rows } = await server
    .db()
    .query("SELECT count(*)::int AS n FROM events WHERE event_name = 'identify' AND previous_user_id = $1", [previous]);
  return rows[0].n;
}

describe("identify with identity verification on", () => {
  it("answers 403 unverified_user to an identify of a signed-in user without user_hash, or with a wrong one, and stores nothing of the request", async () => {
    const anon = `anon-${randomUUID()}`;
    for (const extra of [{}, { user_hash: hashOf("mallory") }, { user_hash: hashOf("alice", "not the secret") }, { user_hash: "zz" }]) {
      const r = await ingest(org, [event({ user: anon, item: "i3" }), identify("alice", anon, extra)]);
      expect(r.status, JSON.stringify(extra)).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: "unverified_user" });
      expect(r.body.message).toContain("events[1].user_id");
    }
    expect(await storedIdentifies(anon)).toBe(0);
  });

  it("answers 403 unverified_user when previous_user_id is not anonymous, even with the user's right hash", async () => {
    const r = await ingest(org, identify("mallory", "alice", { user_hash: hashOf("mallory") }));
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("unverified_user");
    expect(r.body.message).toContain("event.previous_user_id");
    expect(await storedIdentifies("alice")).toBe(0);
  });

  it("merges an anonymous history into the user whose right hash the identify carries", async () => {
    const anon = `anon-${randomUUID()}`;
    expect((await ingest(org, event({ user: anon, item: "i3" }))).status).toBe(202);
    expect((await ingest(org, identify("bob", anon, { user_hash: hashOf("bob") }))).status).toBe(202);
    const { value } = await eventually(
      () => recommend(server.url, org, { strategy: "recently-viewed", user_id: "bob", user_hash: hashOf("bob") }),
      (r) => r.body.data?.recommended_items?.includes("i3"),
    );
    expect(value.body.data.recommended_items).toEqual(["i3"]);
  });

  it("takes an identify between anonymous ids, and events of any user, without a hash", async () => {
    const [a, b] = [`anon-${randomUUID()}`, `anon-${randomUUID()}`];
    expect((await ingest(org, [event({ user: a, item: "i1" }), identify(b, a)])).status).toBe(202);
    expect((await ingest(org, event({ user: "carol", item: "i1" }))).status).toBe(202);
  });
});

describe("recommend with identity verification on", () => {
  for (const strategy of ["recently-viewed", "buy-again", "personalized", "popular"]) {
    it(`answers 403 unverified_user to ${strategy} for a signed-in user without user_hash or with a wrong one`, async () => {
      for (const extra of [{}, { user_hash: hashOf("mallory") }, { user_hash: "0".repeat(64) }, { user_hash: "x".repeat(128) }]) {
        const r = await recommend(server.url, org, { strategy, user_id: "alice", ...extra });
        expect(r.status, JSON.stringify(extra)).toBe(403);
        expect(r.body).toMatchObject({ success: false, error: "unverified_user" });
      }
    });
  }

  it("answers recently-viewed and buy-again for a signed-in user with the right user_hash", async () => {
    const viewed = await recommend(server.url, org, { strategy: "recently-viewed", user_id: "alice", user_hash: hashOf("alice") });
    expect(viewed.status).toBe(200);
    expect(viewed.body.data.recommended_items).toEqual(["i2"]);
    const bought = await recommend(server.url, org, { strategy: "buy-again", user_id: "alice", user_hash: hashOf("alice").toUpperCase() });
    expect(bought.status).toBe(200);
    expect(bought.body.data.recommended_items).toEqual(["i1"]);
  });

  it("answers anonymous ids and requests without a user_id with no hash", async () => {
    const anon = `anon-${randomUUID()}`;
    await sendEvents(server.url, org, [{ user: anon, item: "i3" }]);
    const { value } = await eventually(
      () => recommend(server.url, org, { strategy: "recently-viewed", user_id: anon }),
      (r) => r.body.data?.recommended_items?.includes("i3"),
    );
    expect(value.status).toBe(200);
    expect((await recommend(server.url, org, { strategy: "popular" })).status).toBe(200);
  });
});

describe("what identity verification leaves alone", () => {
  it("needs no hash on secret-key calls", async () => {
    const r = await call(server.url, "POST", "/v1/users/upsert", {
      apiKey: org.sk,
      json: { user_id: "alice", status: "active", created_at: "2024-01-01T00:00:00Z" },
    });
    expect(r.status).toBe(202);
  });

  it("needs no hash in an organisation that has not turned it on, nor once it is turned off", async () => {
    const other = await newOrg(server.url);
    expect((await recommend(server.url, other, { strategy: "recently-viewed", user_id: "alice" })).status).toBe(200);
    const own = await newOrg(server.url);
    await verifyIdentities(server.url, own);
    expect((await recommend(server.url, own, { strategy: "recently-viewed", user_id: "alice" })).status).toBe(403);
    const off = await call(server.url, "PATCH", "/v1/settings/identity-verification", { token: own.token, json: { enabled: false } });
    expect(off.status).toBe(200);
    expect((await recommend(server.url, own, { strategy: "recently-viewed", user_id: "alice" })).status).toBe(200);
  });

  it("verifies with the new secret only, once the secret is rotated", async () => {
    const own = await newOrg(server.url);
    const old = await verifyIdentities(server.url, own);
    const rotated = await call(server.url, "POST", "/v1/settings/identity-verification/secret", { token: own.token });
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.enabled).toBe(true);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).not.toBe(old);
    const ask = (key: string) => recommend(server.url, own, { strategy: "buy-again", user_id: "dave", user_hash: hashOf("dave", key) });
    expect((await ask(old)).status).toBe(403);
    expect((await ask(fresh)).status).toBe(200);
  });
});
