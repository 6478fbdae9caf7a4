import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

const JWT_SECRET = "test-secret-that-is-long-enough-for-hs256";
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { JWT_SECRET } });
});
afterAll(async () => {
  await server?.cleanup();
});

const post = (path: string, json: unknown) => call(server.url, "POST", path, { json, headers: { "x-forwarded-for": freshIp() } });

function jwt(header: object, claims: object, secret = JWT_SECRET): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const body = `${enc(header)}.${enc(claims)}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

describe("register and log in", () => {
  it("registers an organisation with its OWNER and answers 201 with token, user and organisation", async () => {
    const email = `reg-${randomUUID()}@example.com`;
    const r = await post("/auth/register", { email, password: "long enough pw", organisation: "Acme" });
    expect(r.status).toBe(201);
    expect(r.body.data).toEqual({
      token: expect.any(String),
      user: { id: expect.any(String), email, role: "OWNER" },
      organisation: { id: expect.any(String), name: "Acme" },
    });
    const me = await call(server.url, "GET", "/v1/me", { token: r.body.data.token });
    expect(me.status).toBe(200);
    expect(me.body.data.organisation.id).toBe(r.body.data.organisation.id);
  });

  it("records the organisation's creation in its audit log, by its OWNER, from the client's address", async () => {
    const email = `created-${randomUUID()}@example.com`;
    const ip = freshIp();
    const r = await call(server.url, "POST", "/auth/register", {
      json: { email, password: "long enough pw", organisation: "Acme Books" },
      headers: { "x-forwarded-for": ip },
    });
    const log = await call(server.url, "GET", "/v1/audit-log", { token: r.body.data.token });
    expect(log.body.data.entries).toEqual([
      {
        id: expect.any(Number),
        at: expect.any(String),
        actor: { user_id: r.body.data.user.id, email },
        action: "organisation.created",
        target: "Acme Books",
        ip,
      },
    ]);
  });

  it("says in plain words which field is wrong: an empty organisation, a bad email", async () => {
    const r = await post("/auth/register", { email: "not-an-email", password: "1234567890", organisation: "  " });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("organisation: must not be empty");
    expect(r.body.message).toContain("email: must be an email address");
    expect(r.body.message).not.toMatch(/Too small|expected string/);
  });

  it("stores the password with scrypt, never in clear", async () => {
    const email = `hash-${randomUUID()}@example.com`;
    await post("/auth/register", { email, password: "my secret password", organisation: "Acme" });
    const { rows } = await server.db().query("SELECT password_hash FROM accounts WHERE email = $1", [email]);
    expect(rows[0].password_hash).toMatch(/^scrypt\$/);
    expect(rows[0].password_hash).not.toContain("my secret password");
  });

  it("answers 400 validation_error for a password under 10 characters or a bad email", async () => {
    const short = await post("/auth/register", { email: `s-${randomUUID()}@example.com`, password: "123456789", organisation: "A" });
    expect(short.status).toBe(400);
    expect(short.body.error).toBe("validation_error");
    expect(short.body.message).toMatch(/password/);
    const bad = await post("/auth/register", { email: "not-an-email", password: "1234567890", organisation: "A" });
    expect(bad.status).toBe(400);
  });

  it("registers another organisation for an email that has one, answered as for a new email, and never says the email is known", async () => {
    const email = `dup-${randomUUID()}@example.com`;
    const first = await post("/auth/register", { email, password: "first password", organisation: "A" });
    const again = await post("/auth/register", { email, password: "second password", organisation: "B" });
    const fresh = await post("/auth/register", { email: `new-${email}`, password: "second password", organisation: "B" });
    expect([first.status, again.status, fresh.status]).toEqual([201, 201, 201]);
    const shape = (r: typeof again) => ({
      ...r.body,
      data: { ...r.body.data, token: "", user: { ...r.body.data.user, id: "", email: "" }, organisation: { ...r.body.data.organisation, id: "" } },
    });
    expect(shape(again)).toEqual(shape(fresh));
    expect(again.body.data.organisation.id).not.toBe(first.body.data.organisation.id);
    // The email's accounts share one salt, so sign-in checks a password against all of them with one scrypt.
    const { rows } = await server
      .db()
      .query<{ salts: number; n: number }>(
        "SELECT count(DISTINCT split_part(password_hash, '$', 5))::int AS salts, count(*)::int AS n FROM accounts WHERE email = $1",
        [email],
      );
    expect(rows[0]).toEqual({ salts: 1, n: 2 });
  });

  it("signs an email with several accounts in to the one its password matches, the most recently signed-in first, or to the organisation it names", async () => {
    const email = `multi-${randomUUID()}@example.com`;
    const orgOf = (r: Awaited<ReturnType<typeof post>>) => r.body.data?.organisation?.id as string | undefined;
    const a = orgOf(await post("/auth/register", { email, password: "password one", organisation: "A" }));
    const b = orgOf(await post("/auth/register", { email, password: "password two", organisation: "B" }));
    const c = orgOf(await post("/auth/register", { email, password: "password one", organisation: "C" }));
    expect(orgOf(await post("/auth/login", { email, password: "password two" }))).toBe(b);
    expect(orgOf(await post("/auth/login", { email, password: "password one" }))).toBe(c);
    expect(orgOf(await post("/auth/login", { email, password: "password one", organisation_id: a }))).toBe(a);
    // Having signed in to A, the same password now reaches A first.
    expect(orgOf(await post("/auth/login", { email, password: "password one" }))).toBe(a);
    const wrong = await post("/auth/login", { email, password: "password two", organisation_id: a });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_credentials");
  });

  it("logs in with the right password and records auth.login in the audit log", async () => {
    const org = await newOrg(server.url);
    const r = await post("/auth/login", { email: org.email, password: org.password });
    expect(r.status).toBe(200);
    expect(r.body.data.user.email).toBe(org.email);
    const log = await call(server.url, "GET", "/v1/audit-log", { token: r.body.data.token });
    expect(log.body.data.entries[0].action).toBe("auth.login");
  });

  it("answers 401 invalid_credentials with the same message for a wrong password and an unknown email", async () => {
    const org = await newOrg(server.url);
    const wrongPw = await post("/auth/login", { email: org.email, password: "not the password" });
    const noUser = await post("/auth/login", { email: `nobody-${randomUUID()}@example.com`, password: "not the password" });
    expect(wrongPw.status).toBe(401);
    expect(noUser.status).toBe(401);
    expect(wrongPw.body).toEqual(noUser.body);
    expect(wrongPw.body.error).toBe("invalid_credentials");
  });
});

describe("dashboard tokens", () => {
  it("accepts a token signed with HS256, our issuer and a future expiry", async () => {
    const org = await newOrg(server.url);
    const claims = JSON.parse(Buffer.from(org.token.split(".")[1], "base64url").toString());
    expect(claims).toMatchObject({ sub: expect.any(String), org: org.orgId, role: "OWNER", iss: "recsvc" });
    expect(claims.exp - claims.iat).toBe(12 * 3600);
    const forged = jwt({ alg: "HS256", typ: "JWT" }, claims);
    expect((await call(server.url, "GET", "/v1/me", { token: forged })).status).toBe(200);
  });

  it("answers 401 invalid_token for an expired token, another issuer, alg none, or a bad signature", async () => {
    const org = await newOrg(server.url);
    const claims = JSON.parse(Buffer.from(org.token.split(".")[1], "base64url").toString());
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      jwt({ alg: "HS256", typ: "JWT" }, { ...claims, exp: now - 1 }),
      jwt({ alg: "HS256", typ: "JWT" }, { ...claims, iss: "someone-else" }),
      jwt({ alg: "HS256", typ: "JWT" }, claims, "another secret entirely, also long"),
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${org.token.split(".")[1]}.`,
      "not.a.token",
    ];
    for (const token of bad) {
      const r = await call(server.url, "GET", "/v1/me", { token });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("invalid_token");
    }
  });
});
