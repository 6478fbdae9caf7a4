import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg } from "../helpers/api.js";
import { mailsTo, tokenMailedTo } from "../helpers/mail.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

const NEW_PASSWORD = "a brand new passphrase";
const RESET = "Reset your password";
const login = (email: string, password: string) =>
  call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
const me = (token: string) => call(server.url, "GET", "/v1/me", { token });
const change = (token: string, old_password: string, new_password: string) =>
  call(server.url, "POST", "/v1/me/password", { token, json: { old_password, new_password } });
const askReset = (email: string) => call(server.url, "POST", "/auth/password-reset", { json: { email }, headers: { "x-forwarded-for": freshIp() } });
const confirm = (token: string, new_password: string) =>
  call(server.url, "POST", "/auth/password-reset/confirm", { json: { token, new_password }, headers: { "x-forwarded-for": freshIp() } });

describe("POST /v1/me/password", () => {
  it("changes the password with the old one: other sessions end, the caller's goes on, and only the new password signs in", async () => {
    const org = await newOrg(server.url);
    const other = (await login(org.email, org.password)).body.data.token;
    const r = await change(org.token, org.password, NEW_PASSWORD);
    expect(r.status).toBe(200);
    expect((await me(org.token)).status).toBe(200);
    const ended = await me(other);
    expect(ended.status).toBe(401);
    expect(ended.body.error).toBe("invalid_token");
    expect((await login(org.email, org.password)).status).toBe(401);
    expect((await login(org.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("answers 401 invalid_credentials for a wrong old password and changes nothing", async () => {
    const org = await newOrg(server.url);
    const other = (await login(org.email, org.password)).body.data.token;
    const r = await change(org.token, "not the old password", NEW_PASSWORD);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_credentials");
    expect((await me(other)).status).toBe(200);
    expect((await login(org.email, org.password)).status).toBe(200);
  });

  it("answers 400 validation_error for a new password under 10 characters", async () => {
    const org = await newOrg(server.url);
    const r = await change(org.token, org.password, "short");
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("validation_error");
  });

  it("counts wrong old passwords against the email's sign-in failures, so a stolen session cannot guess without bound", async () => {
    const org = await newOrg(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await change(org.token, `guess number ${i}`, NEW_PASSWORD)).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect((await change(org.token, org.password, NEW_PASSWORD)).status).toBe(429);
  });

  it("records auth.password_changed", async () => {
    const org = await newOrg(server.url);
    await change(org.token, org.password, NEW_PASSWORD);
    const log = await call(server.url, "GET", "/v1/audit-log?limit=1", { token: org.token });
    expect(log.body.data.entries[0]).toMatchObject({ action: "auth.password_changed", target: org.email });
  });
});

describe("password reset", () => {
  it("answers 202 with the same body whether the email has an account or not, and mails a token only to an account", async () => {
    const org = await newOrg(server.url);
    const unknown = `nobody-${randomUUID()}@example.com`;
    const [known, none] = [await askReset(org.email), await askReset(unknown)];
    expect(known.status).toBe(202);
    expect(none.status).toBe(202);
    expect(none.body).toEqual(known.body);
    await tokenMailedTo(server, org.email, RESET);
    expect(mailsTo(server, unknown)).toEqual([]);
  });

  it("sets the new password with the mailed token and ends every session of the account", async () => {
    const org = await newOrg(server.url);
    await askReset(org.email);
    const token = await tokenMailedTo(server, org.email, RESET);
    const r = await confirm(token, NEW_PASSWORD);
    expect(r.status).toBe(200);
    expect((await me(org.token)).status).toBe(401);
    expect((await login(org.email, org.password)).status).toBe(401);
    expect((await login(org.email, NEW_PASSWORD)).status).toBe(200);
    const log = await call(server.url, "GET", "/v1/audit-log?limit=5", { token: (await login(org.email, NEW_PASSWORD)).body.data.token });
    expect(log.body.data.entries.map((e: { action: string }) => e.action)).toContain("auth.password_reset");
  });

  it("takes a token once: a second use, an unknown token or an expired one is 401 invalid_token", async () => {
    const org = await newOrg(server.url);
    await askReset(org.email);
    const token = await tokenMailedTo(server, org.email, RESET);
    expect((await confirm(token, NEW_PASSWORD)).status).toBe(200);
    const again = await confirm(token, "yet another passphrase");
    expect(again.status).toBe(401);
    expect(again.body.error).toBe("invalid_token");
    expect((await confirm("made-up-token", NEW_PASSWORD)).status).toBe(401);
    expect((await login(org.email, NEW_PASSWORD)).status).toBe(200);

    const other = await newOrg(server.url);
    await askReset(other.email);
    const stale = await tokenMailedTo(server, other.email, RESET);
    await server.db().query("UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE email = $1", [other.email]);
    expect((await confirm(stale, NEW_PASSWORD)).status).toBe(401);
    expect((await login(other.email, other.password)).status).toBe(200);
  });

  it("mails an email with accounts in two organisations one token for each, and each token resets its own account only", async () => {
    const org = await newOrg(server.url);
    const second = await call(server.url, "POST", "/auth/register", {
      json: { email: org.email, password: "the second password", organisation: "Second" },
      headers: { "x-forwarded-for": freshIp() },
    });
    expect(second.status).toBe(201);
    await askReset(org.email);
    await tokenMailedTo(server, org.email, RESET);
    const mail = mailsTo(server, org.email).at(-1)!;
    const tokens = [...mail.text.matchAll(/^(.+): POST \/auth\/password-reset\/confirm \{"token": "([\w-]+)"/gm)].map((m) => ({
      org: m[1],
      token: m[2],
    }));
    expect(tokens.map((t) => t.org).sort()).toEqual([`Org ${org.email}`, "Second"].sort());
    const forSecond = tokens.find((t) => t.org === "Second")!;
    expect((await confirm(forSecond.token, NEW_PASSWORD)).status).toBe(200);
    const signedIn = await login(org.email, NEW_PASSWORD);
    expect(signedIn.body.data.organisation.id).toBe(second.body.data.organisation.id);
    expect((await login(org.email, org.password)).body.data.organisation.id).toBe(org.orgId);
  });

  it("stores only a digest of the token, and mails one token a minute per account however often it is asked", async () => {
    const org = await newOrg(server.url);
    for (let i = 0; i < 5; i++) expect((await askReset(org.email)).status).toBe(202);
    const token = await tokenMailedTo(server, org.email, RESET);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(server, org.email)).toHaveLength(1);
    const { rows } = await server.db().query("SELECT encode(digest, 'hex') AS digest FROM account_tokens WHERE email = $1", [org.email]);
    expect(rows).toHaveLength(1);
    expect(rows[0].digest).not.toContain(Buffer.from(token).toString("hex"));
  });
});
