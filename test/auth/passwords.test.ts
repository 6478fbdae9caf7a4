import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_QUEUE_MAX: "2", MEMBERS_RATE_LIMIT_MAX: "5" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const login = (email: string, password: string) =>
  call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
const addMember = (token: string) =>
  call(server.url, "POST", "/v1/members", { token, json: { email: `m-${randomUUID()}@example.com`, role: "MEMBER" } });

describe("the process's password hashing", () => {
  it("answers 503 unavailable with Retry-After to hashes beyond PASSWORD_HASH_QUEUE_MAX waiting, and serves the rest", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => login(`nobody-${randomUUID()}@example.com`, "some password")));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3);
    const refused = answers.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.error).toBe("unavailable");
      expect(r.headers.get("retry-after")).toBe("1");
    }
    const org = await newOrg(server.url);
    expect((await login(org.email, org.password)).status).toBe(200);
  });
});

describe("POST /v1/members limits", () => {
  it("answers 429 rate_limited with Retry-After past MEMBERS_RATE_LIMIT_MAX additions per organisation, and not to another organisation", async () => {
    const org = await newOrg(server.url);
    const other = await newOrg(server.url);
    for (let i = 0; i < 5; i++) expect((await addMember(org.token)).status).toBe(201);
    const limited = await addMember(org.token);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await addMember(other.token)).status).toBe(201);
    // An addition is an invitation (the account exists once the invitee accepts): five pending, no more.
    const { rows } = await server
      .db()
      .query("SELECT count(*)::int AS n FROM account_tokens WHERE org_id = $1 AND purpose = 'invitation'", [org.orgId]);
    expect(rows[0].n).toBe(5);
  });

  it("keeps another organisation's dashboard answering while one sends 100 additions at once", async () => {
    const org = await newOrg(server.url);
    const other = await newOrg(server.url);
    const flood = Promise.all(Array.from({ length: 100 }, () => addMember(org.token)));
    const bystander = await Promise.all(Array.from({ length: 10 }, () => call(server.url, "GET", "/v1/me", { token: other.token })));
    const statuses = (await flood).map((r) => r.status);
    expect(bystander.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => ![201, 429, 503].includes(s))).toEqual([]);
    expect((await login(other.email, other.password)).status).toBe(200);
  });
});
