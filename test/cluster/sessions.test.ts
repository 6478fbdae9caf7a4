import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { addMember, loginToken } from "../helpers/members.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL: a session ended through one is over in the other at once. */
let p1: TestServer;
let p2: TestServer;
const env = { CLUSTER: "1" };
beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env });
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const me = (p: TestServer, opts: { token?: string; headers?: Record<string, string> }) => call(p.url, "GET", "/v1/me", opts);

describe("sessions across processes with CLUSTER=1", () => {
  it("ends a session in the other process on its next request after a logout through one (token and cookie)", async () => {
    const org = await newOrg(p1.url);
    const r = await call(p2.url, "POST", "/auth/login", {
      json: { email: org.email, password: org.password },
      headers: { "x-forwarded-for": freshIp() },
    });
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0];
    expect((await me(p2, { token: org.token })).status).toBe(200);
    expect((await me(p1, { headers: { cookie } })).status).toBe(200);
    expect((await call(p1.url, "POST", "/auth/logout", { token: org.token })).status).toBe(200);
    expect((await me(p2, { token: org.token })).status).toBe(401);
    expect((await call(p2.url, "POST", "/auth/logout", { headers: { cookie, origin: p2.url } })).status).toBe(200);
    expect((await me(p1, { headers: { cookie } })).status).toBe(401);
  });

  it("ends a removed member's session in the other process at once", async () => {
    const org = await newOrg(p1.url);
    const member = await addMember(p1, org, "DEVELOPER");
    const token = await loginToken(p2, member.email);
    expect((await me(p2, { token })).status).toBe(200);
    expect((await call(p1.url, "DELETE", `/v1/members/${member.userId}`, { token: org.token })).status).toBe(200);
    expect((await me(p2, { token })).status).toBe(401);
  });
});
