import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { SESSIONS_PER_ACCOUNT_MAX: "3" } });
});
afterAll(async () => {
  await server?.cleanup();
});

async function login(email: string, password: string): Promise<{ token: string; cookie: string }> {
  const r = await call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
  expect(r.status).toBe(200);
  return { token: r.body.data.token, cookie: (r.headers.get("set-cookie") ?? "").split(";")[0] };
}
const me = (opts: { token?: string; headers?: Record<string, string> }) => call(server.url, "GET", "/v1/me", opts);

describe("POST /auth/logout", () => {
  it("ends the bearer token's session: the token then answers 401 invalid_token, and the account's other sessions go on", async () => {
    const org = await newOrg(server.url);
    const other = await login(org.email, org.password);
    expect((await me({ token: org.token })).status).toBe(200);
    const out = await call(server.url, "POST", "/auth/logout", { token: org.token });
    expect(out.status).toBe(200);
    const after = await me({ token: org.token });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe("invalid_token");
    expect((await call(server.url, "POST", "/v1/keys", { token: org.token })).status).toBe(401);
    expect((await me({ token: other.token })).status).toBe(200);
  });

  it("ends the cookie's session, so the cookie a browser kept (or someone copied) stops working", async () => {
    const org = await newOrg(server.url);
    const { cookie } = await login(org.email, org.password);
    expect((await me({ headers: { cookie } })).status).toBe(200);
    const out = await call(server.url, "POST", "/auth/logout", { headers: { cookie, origin: server.url } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^recsvc_session=; .*Max-Age=0/);
    expect((await me({ headers: { cookie } })).status).toBe(401);
  });

  it("answers 200 and clears the cookie when the token is missing, already ended, or not a token", async () => {
    const org = await newOrg(server.url);
    await call(server.url, "POST", "/auth/logout", { token: org.token });
    for (const opts of [{}, { token: org.token }, { token: "not.a.token" }]) {
      const r = await call(server.url, "POST", "/auth/logout", opts);
      expect(r.status).toBe(200);
      expect(r.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    }
  });

  it("records auth.logout in the audit log", async () => {
    const org = await newOrg(server.url);
    const other = await login(org.email, org.password);
    await call(server.url, "POST", "/auth/logout", { token: org.token, headers: { "x-forwarded-for": "10.9.8.7" } });
    const log = await call(server.url, "GET", "/v1/audit-log", { token: other.token });
    expect(log.body.data.entries[0]).toMatchObject({ action: "auth.logout", target: org.email, ip: "10.9.8.7" });
  });
});

describe("sessions per account", () => {
  it("ends the oldest session when a sign-in would keep more than SESSIONS_PER_ACCOUNT_MAX", async () => {
    const org = await newOrg(server.url);
    const later = [await login(org.email, org.password), await login(org.email, org.password)];
    expect((await me({ token: org.token })).status).toBe(200);
    await login(org.email, org.password);
    expect((await me({ token: org.token })).status).toBe(401);
    for (const s of later) expect((await me({ token: s.token })).status).toBe(200);
    const { rows } = await server
      .db()
      .query("SELECT count(*)::int AS n FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE a.email = $1", [org.email]);
    expect(rows[0].n).toBe(3);
  });
});
