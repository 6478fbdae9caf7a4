import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

/** The session cookie a login answer sets, as a browser would send it back. */
async function sessionCookie(email: string, password: string): Promise<{ setCookie: string; cookie: string }> {
  const r = await call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
  const setCookie = r.headers.get("set-cookie") ?? "";
  return { setCookie, cookie: setCookie.split(";")[0] };
}

describe("the web dashboard's session cookie", () => {
  it("is set by login as HttpOnly and SameSite=Strict, for the token's lifetime", async () => {
    const org = await newOrg(server.url);
    const { setCookie } = await sessionCookie(org.email, org.password);
    expect(setCookie).toMatch(/^recsvc_session=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  });

  it("authenticates dashboard calls without an Authorization header", async () => {
    const org = await newOrg(server.url);
    const { cookie } = await sessionCookie(org.email, org.password);
    const me = await call(server.url, "GET", "/v1/me", { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.data.user.email).toBe(org.email);
    const keys = await call(server.url, "POST", "/v1/keys", { headers: { cookie, origin: server.url } });
    expect(keys.status).toBe(201);
  });

  it("answers 401 invalid_token to a change sent with the cookie from another origin", async () => {
    const org = await newOrg(server.url);
    const { cookie } = await sessionCookie(org.email, org.password);
    const r = await call(server.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { headers: { cookie, origin: "https://evil.example" } });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_token");
    expect((await call(server.url, "GET", "/v1/keys", { token: org.token })).body.data.key_pairs[0].status).toBe("active");
  });

  it("is cleared by POST /auth/logout", async () => {
    const r = await call(server.url, "POST", "/auth/logout");
    expect(r.status).toBe(200);
    expect(r.headers.get("set-cookie")).toMatch(/^recsvc_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
  });
});

describe("security headers", () => {
  it("marks every API answer nosniff, no-referrer, and loadable by no page", async () => {
    for (const r of [await call(server.url, "GET", "/healthz"), await call(server.url, "GET", "/v1/nowhere")]) {
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("no-referrer");
      expect(r.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it("serves the dashboard page with a CSP that allows only its own script, styles and API", async () => {
    for (const path of ["/dashboard", "/dashboard/app.js", "/dashboard/charts.js", "/dashboard/verdict.js", "/dashboard/style.css"]) {
      const res = await fetch(server.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
    const page = await (await fetch(`${server.url}/dashboard`)).text();
    expect(page).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/); // nothing inline for the CSP to have to allow
  });
});
