import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

const KEY_FORMAT = /^svc_(pk|sk)_[0-9A-Za-z]{32,}$/;

describe("key pairs", () => {
  it("generates a pair of svc_pk_/svc_sk_ keys with 32+ base62 characters and shows the secret once", async () => {
    const org = await newOrg(server.url);
    expect(org.pk).toMatch(KEY_FORMAT);
    expect(org.pk.startsWith("svc_pk_")).toBe(true);
    expect(org.sk).toMatch(KEY_FORMAT);
    expect(org.sk.startsWith("svc_sk_")).toBe(true);
    const list = await call(server.url, "GET", "/v1/keys", { token: org.token });
    expect(JSON.stringify(list.body)).not.toContain(org.sk);
  });

  it("stores the secret key only as its SHA-256 digest", async () => {
    const org = await newOrg(server.url);
    const { rows } = await server.db().query("SELECT * FROM key_pairs WHERE id = $1", [org.keyPairId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(org.sk.slice(7));
    expect(Buffer.from(rows[0].secret_digest).equals(createHash("sha256").update(org.sk).digest())).toBe(true);
  });

  it("answers 409 conflict for a third active pair, and allows one again after a revocation", async () => {
    const org = await newOrg(server.url);
    expect((await call(server.url, "POST", "/v1/keys", { token: org.token })).status).toBe(201);
    const third = await call(server.url, "POST", "/v1/keys", { token: org.token });
    expect(third.status).toBe(409);
    expect(third.body.error).toBe("conflict");
    expect((await call(server.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { token: org.token })).status).toBe(200);
    expect((await call(server.url, "POST", "/v1/keys", { token: org.token })).status).toBe(201);
  });

  it("lists pairs with the publishable key in full and the secret masked for OWNER, ADMIN and DEVELOPER", async () => {
    const org = await newOrg(server.url);
    for (const token of [org.token, await memberToken(server, org, "ADMIN"), await memberToken(server, org, "DEVELOPER")]) {
      const r = await call(server.url, "GET", "/v1/keys", { token });
      expect(r.status).toBe(200);
      expect(r.body.data.key_pairs).toEqual([
        {
          key_pair_id: org.keyPairId,
          status: "active",
          created_at: expect.any(String),
          revoked_at: null,
          publishable_key: org.pk,
          secret_key: `svc_sk_…${org.sk.slice(-4)}`,
        },
      ]);
    }
  });

  it("answers 403 forbidden_role to a MEMBER", async () => {
    const org = await newOrg(server.url);
    const member = await call(server.url, "GET", "/v1/keys", { token: await memberToken(server, org, "MEMBER") });
    expect(member.status).toBe(403);
    expect(member.body.error).toBe("forbidden_role");
  });

  it("answers 403 forbidden_role when a DEVELOPER or MEMBER generates or revokes keys", async () => {
    const org = await newOrg(server.url);
    for (const role of ["DEVELOPER", "MEMBER"] as const) {
      const token = await memberToken(server, org, role);
      const gen = await call(server.url, "POST", "/v1/keys", { token });
      expect(gen.status).toBe(403);
      expect(gen.body.error).toBe("forbidden_role");
      const rev = await call(server.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { token });
      expect(rev.status).toBe(403);
      expect(rev.body.error).toBe("forbidden_role");
    }
    const still = await call(server.url, "POST", "/v1/events/ingest", {
      json: { user_id: "u", event_family: "engagement", event_name: "view" },
      apiKey: org.pk,
    });
    expect(still.status).toBe(202);
  });

  it("answers 404 for revoking a pair of another organisation or an id that is not a pair", async () => {
    const a = await newOrg(server.url);
    const b = await newOrg(server.url);
    const cross = await call(server.url, "POST", `/v1/keys/${a.keyPairId}/revoke`, { token: b.token });
    expect(cross.status).toBe(404);
    expect(cross.body.error).toBe("not_found");
    const bogus = await call(server.url, "POST", "/v1/keys/not-a-uuid/revoke", { token: b.token });
    expect(bogus.status).toBe(404);
    const ok = await call(server.url, "POST", "/v1/events/ingest", {
      json: { user_id: "u", event_family: "engagement", event_name: "view" },
      apiKey: a.pk,
    });
    expect(ok.status).toBe(202);
  });

  it("answers 401 invalid_token without a bearer token", async () => {
    const r = await call(server.url, "POST", "/v1/keys");
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_token");
  });
});

describe("audit log", () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg(server.url);
    await call(server.url, "GET", "/v1/keys", { token: org.token });
    await call(server.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { token: org.token });
  });

  it("records the organisation's creation, key generation and revocation, newest first, with actor and IP, and no entry for listing keys", async () => {
    const r = await call(server.url, "GET", "/v1/audit-log", { token: org.token });
    expect(r.status).toBe(200);
    const entries = r.body.data.entries;
    expect(entries.map((e: { action: string }) => e.action)).toEqual(["key_pair.revoked", "key_pair.generated", "organisation.created"]);
    expect(entries[2]).toMatchObject({ actor: { email: org.email }, target: `Org ${org.email}`, ip: expect.any(String) });
    expect(entries[0]).toMatchObject({ actor: { email: org.email }, target: org.keyPairId, ip: expect.any(String) });
    expect(Date.parse(entries[0].at)).toBeGreaterThanOrEqual(Date.parse(entries[2].at));
  });

  it("pages with limit and before", async () => {
    const first = await call(server.url, "GET", "/v1/audit-log?limit=2", { token: org.token });
    expect(first.body.data.entries).toHaveLength(2);
    const before = first.body.data.entries[1].id;
    const second = await call(server.url, "GET", `/v1/audit-log?limit=2&before=${before}`, { token: org.token });
    expect(second.body.data.entries.map((e: { action: string }) => e.action)).toEqual(["organisation.created"]);
  });

  it("answers 400 validation_error for a bad limit", async () => {
    const r = await call(server.url, "GET", "/v1/audit-log?limit=0", { token: org.token });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
  });

  it("answers 403 forbidden_role to a DEVELOPER", async () => {
    const r = await call(server.url, "GET", "/v1/audit-log", { token: await memberToken(server, org, "DEVELOPER") });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe("forbidden_role");
  });

  it("never shows another organisation's entries", async () => {
    const other = await newOrg(server.url);
    const r = await call(server.url, "GET", "/v1/audit-log", { token: other.token });
    expect(r.body.data.entries.map((e: { action: string }) => e.action)).toEqual(["key_pair.generated", "organisation.created"]);
    expect(r.body.data.entries[0].actor.email).toBe(other.email);
  });
});
