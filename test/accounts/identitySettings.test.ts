import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/roles.js";
import { call, newOrg } from "../helpers/api.js";
import { userHash } from "../helpers/identity.js";
import { memberToken } from "../helpers/members.js";
import { recommend } from "../helpers/recommend.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/** The identity verification settings (OWNER, ADMIN) on two processes sharing one PostgreSQL (CLUSTER=1). */
let p1: TestServer;
let p2: TestServer;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "100000" };
const PATH = "/v1/settings/identity-verification";

beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const read = (token: string) => call(p1.url, "GET", PATH, { token });
const set = (token: string, enabled: boolean) => call(p1.url, "PATCH", PATH, { token, json: { enabled } });
const rotate = (token: string) => call(p1.url, "POST", `${PATH}/secret`, { token });

describe("identity verification settings", () => {
  it("are off with no secret at first, refuse to turn on before a secret exists, and show the secret only when it is generated", async () => {
    const org = await newOrg(p1.url);
    expect((await read(org.token)).body.data).toEqual({ enabled: false, has_secret: false, secret_rotated_at: null });
    const early = await set(org.token, true);
    expect(early.status).toBe(409);
    expect(early.body.error).toBe("conflict");
    const made = await rotate(org.token);
    expect(made.status).toBe(201);
    expect(made.body.data.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(made.body.data.enabled).toBe(false);
    const on = await set(org.token, true);
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ enabled: true, has_secret: true, secret_rotated_at: made.body.data.secret_rotated_at });
    expect(JSON.stringify((await read(org.token)).body)).not.toContain(made.body.data.secret);
  });

  for (const role of ["OWNER", "ADMIN"] as const) {
    it(`lets ${role} read and change them, each change audited`, async () => {
      const org = await newOrg(p1.url);
      const token = role === "OWNER" ? org.token : await memberToken(p1, org, role);
      expect((await rotate(token)).status).toBe(201);
      expect((await set(token, true)).status).toBe(200);
      expect((await set(token, false)).status).toBe(200);
      expect((await read(token)).status).toBe(200);
      const audit = await call(p1.url, "GET", "/v1/audit-log", { token: org.token });
      const actions = (audit.body.data.entries as Array<{ action: string }>).map((e) => e.action);
      expect(actions.slice(0, 3)).toEqual([
        "identity_verification.disabled",
        "identity_verification.enabled",
        "identity_verification.secret_rotated",
      ]);
    });
  }

  for (const role of ["DEVELOPER", "MEMBER"] as Role[]) {
    it(`answers 403 forbidden_role to ${role} for reading, changing and rotating`, async () => {
      const org = await newOrg(p1.url);
      const token = await memberToken(p1, org, role);
      for (const r of [await read(token), await set(token, true), await rotate(token)]) {
        expect(r.status).toBe(403);
        expect(r.body.error).toBe("forbidden_role");
      }
      expect((await read(org.token)).body.data.has_secret).toBe(false);
    });
  }

  it("answers 401 invalid_token without a dashboard token", async () => {
    const r = await call(p1.url, "GET", PATH);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_token");
  });

  it("reach the other process within a second: turning on, rotating and turning off", async () => {
    const org = await newOrg(p1.url);
    const ask = (hash?: string) => recommend(p2.url, org, { strategy: "buy-again", user_id: "u-1", ...(hash ? { user_hash: hash } : {}) });
    expect((await ask()).status).toBe(200); // p2 knows the key now
    const within = async (accept: (status: number) => boolean, hash?: string) => {
      const from = Date.now();
      let status = (await ask(hash)).status;
      while (!accept(status) && Date.now() - from < 3000) status = (await ask(hash)).status;
      expect(accept(status)).toBe(true);
      expect(Date.now() - from).toBeLessThan(1000);
    };
    const first = (await rotate(org.token)).body.data.secret as string;
    expect((await set(org.token, true)).status).toBe(200);
    await within((s) => s === 403);
    await within((s) => s === 200, userHash(first, "u-1"));
    const second = (await rotate(org.token)).body.data.secret as string;
    await within((s) => s === 403, userHash(first, "u-1"));
    await within((s) => s === 200, userHash(second, "u-1"));
    expect((await set(org.token, false)).status).toBe(200);
    await within((s) => s === 200);
  });
});
