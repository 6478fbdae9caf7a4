import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Role } from "../../src/auth/roles.js";
import { call, newOrg, viewEvent } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/** The organisation's rate limit (OWNER, ADMIN), set on one process and obeyed by another sharing PostgreSQL (CLUSTER=1). */
let p1: TestServer;
let p2: TestServer;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "1000", RATE_LIMIT_WINDOW_S: "900" };
const PATH = "/v1/settings/rate-limit";

beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const read = (token: string) => call(p1.url, "GET", PATH, { token });
const set = (token: string, json: unknown) => call(p1.url, "PATCH", PATH, { token, json });
const SERVICE = { service_max: 1000, service_window_s: 900 };

describe("PATCH /v1/settings/rate-limit", () => {
  it("shows the service's limit at first, sets the organisation's own, audited, and goes back to the service's with null", async () => {
    const org = await newOrg(p1.url);
    expect((await read(org.token)).body.data).toEqual({
      rate_limit_max: null,
      rate_limit_window_s: null,
      ...SERVICE,
      effective_max: 1000,
      effective_window_s: 900,
    });
    const r = await set(org.token, { rate_limit_max: 5000, rate_limit_window_s: 60 });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ rate_limit_max: 5000, rate_limit_window_s: 60, ...SERVICE, effective_max: 5000, effective_window_s: 60 });
    const stored = await p1.db().query("SELECT rate_limit_max, rate_limit_window_s FROM organisations WHERE id = $1", [org.orgId]);
    expect(stored.rows).toEqual([{ rate_limit_max: 5000, rate_limit_window_s: 60 }]);
    expect((await set(org.token, { rate_limit_max: null, rate_limit_window_s: null })).body.data.effective_max).toBe(1000);
    const audit = await call(p1.url, "GET", "/v1/audit-log?limit=2", { token: org.token });
    expect(audit.body.data.entries.map((e: { action: string; target: string }) => [e.action, e.target])).toEqual([
      ["rate_limit.changed", "rate_limit=service;w=service"],
      ["rate_limit.changed", "rate_limit=5000;w=60"],
    ]);
  });

  it("answers 400 validation_error naming the field for values out of bounds, and changes nothing", async () => {
    const org = await newOrg(p1.url);
    for (const [json, field] of [
      [{ rate_limit_max: 0, rate_limit_window_s: 900 }, "rate_limit_max: must be at least 1"],
      [{ rate_limit_max: 1_000_001, rate_limit_window_s: 900 }, "rate_limit_max: must be at most 1,000,000"],
      [{ rate_limit_max: 10, rate_limit_window_s: 59 }, "rate_limit_window_s: must be at least 60 seconds"],
      [{ rate_limit_max: 10, rate_limit_window_s: 86_401 }, "rate_limit_window_s: must be at most 86,400 seconds"],
      [{ rate_limit_max: 1.5, rate_limit_window_s: 900 }, "rate_limit_max"],
      [{ rate_limit_max: 10 }, "rate_limit_window_s"],
    ] as const) {
      const r = await set(org.token, json);
      expect([r.status, r.body.error], JSON.stringify(json)).toEqual([400, "validation_error"]);
      expect(r.body.message).toContain(field);
    }
    expect((await read(org.token)).body.data.rate_limit_max).toBeNull();
  });

  for (const role of ["DEVELOPER", "MEMBER"] as Role[]) {
    it(`answers 403 forbidden_role to ${role} for reading and changing`, async () => {
      const org = await newOrg(p1.url);
      const token = await memberToken(p1, org, role);
      for (const r of [await read(token), await set(token, { rate_limit_max: 1, rate_limit_window_s: 60 })]) {
        expect([r.status, r.body.error]).toEqual([403, "forbidden_role"]);
      }
    });
  }

  it("lets an ADMIN lower the limit, and another process applies it within about a second (2 s allowed on a loaded machine), 429 past it", async () => {
    const org = await newOrg(p1.url);
    const admin = await memberToken(p1, org, "ADMIN");
    const ingest = (url: string) => call(url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u", "i") });
    expect((await ingest(p2.url)).headers.get("ratelimit-policy")).toBe("1000;w=900");
    expect((await set(admin, { rate_limit_max: 3, rate_limit_window_s: 600 })).status).toBe(200);
    const changedAt = performance.now();
    let policy: string | null = null;
    while (performance.now() - changedAt < 2000 && policy !== "3;w=600") policy = (await ingest(p2.url)).headers.get("ratelimit-policy");
    expect(policy).toBe("3;w=600");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await ingest(p2.url)).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(2); // the window counted the one above already
  });
});
