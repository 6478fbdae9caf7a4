import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, viewEvent } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW_S: "60" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const item = { item_id: "i", item_type: "product", status: "active" };

describe("per-organisation rate limit", () => {
  it("shares one budget across all keys of an organisation and answers 429 rate_limited with Retry-After", async () => {
    const org = await newOrg(server.url);
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: org.pk });
      const b = await call(server.url, "POST", "/v1/items/upsert", { json: item, apiKey: org.sk });
      statuses.push(a.status, b.status);
      remaining.push(a.headers.get("ratelimit-remaining")!, b.headers.get("ratelimit-remaining")!);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    expect(remaining).toEqual(["4", "3", "2", "1", "0", "0"]);
    const last = await call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: org.pk });
    expect(last.status).toBe(429);
    expect(last.body.error).toBe("rate_limited");
    expect(last.headers.get("ratelimit-policy")).toBe("5;w=60");
    const retry = Number(last.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(last.headers.get("ratelimit-reset")).toBe(String(retry));
  });

  it("does not let one organisation's traffic spend another's budget", async () => {
    const a = await newOrg(server.url);
    const b = await newOrg(server.url);
    for (let i = 0; i < 6; i++) await call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: a.pk });
    const r = await call(server.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: b.pk });
    expect(r.status).toBe(202);
    expect(r.headers.get("ratelimit-remaining")).toBe("4");
  });

  it("applies an organisation's own limit over the setting", async () => {
    // Two starts of a fresh server (the first initialises its database): hence the longer timeout.
    // A server of its own, restarted to read the limit (read when an organisation's keys are loaded): a second
    // process beside the file's server would need CLUSTER=1 on both, and test the leased limiter instead.
    const env = { RATE_LIMIT_MAX: "5", RATE_LIMIT_WINDOW_S: "60" };
    const first = await startServer({ env });
    let restarted: TestServer | undefined;
    try {
      const org = await newOrg(first.url);
      await first.db().query("UPDATE organisations SET rate_limit_max = 2, rate_limit_window_s = 30 WHERE id = $1", [org.orgId]);
      expect(await first.stop()).toBe(0);
      restarted = await startServer({ reuse: first, env });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await call(restarted.url, "POST", "/v1/events/ingest", { json: viewEvent("u", "i"), apiKey: org.pk })).status);
      }
      expect(statuses).toEqual([202, 202, 429]);
    } finally {
      await restarted?.stop();
      await first.cleanup();
    }
  }, 180_000);
});

describe("per-IP limit on /auth", () => {
  it("answers 429 rate_limited to the 11th register or login from one address within 15 minutes", async () => {
    const ip = "10.200.0.1";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await call(server.url, "POST", "/auth/login", {
        json: { email: "nobody@example.com", password: "wrong password" },
        headers: { "x-forwarded-for": ip },
      });
      statuses.push(r.status);
      if (i === 10) {
        expect(r.body.error).toBe("rate_limited");
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    const register = await call(server.url, "POST", "/auth/register", {
      json: { email: "x@example.com", password: "1234567890", organisation: "X" },
      headers: { "x-forwarded-for": ip },
    });
    expect(register.status).toBe(429);
    // Another email: nobody@example.com has now failed 10 times, which locks it from every address (test/accounts/loginThrottle.test.ts).
    const otherIp = await call(server.url, "POST", "/auth/login", {
      json: { email: "somebody-else@example.com", password: "wrong password" },
      headers: { "x-forwarded-for": "10.200.0.2" },
    });
    expect(otherIp.status).toBe(401);
  });
});
