import { randomUUID } from "node:crypto";
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

/** Each attempt from an address of its own, so the per-IP limit never answers. */
const login = (email: string, password: string) =>
  call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });

async function failTimes(email: string, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await login(email, `wrong guess ${i}`)).status);
  return statuses;
}

describe("per-email sign-in throttling", () => {
  it("answers 429 rate_limited with Retry-After after 10 wrong passwords for one email from 10 addresses, even to the right password", async () => {
    const org = await newOrg(server.url);
    expect(await failTimes(org.email, 10)).toEqual(Array(10).fill(401));
    const locked = await login(org.email, org.password);
    expect(locked.status).toBe(429);
    expect(locked.body.error).toBe("rate_limited");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it("answers an email without an account exactly as one with an account, before and after the limit", async () => {
    const org = await newOrg(server.url);
    const unknown = `nobody-${randomUUID()}@example.com`;
    const known = [...(await failTimes(org.email, 10)), (await login(org.email, "one more guess")).status];
    const none = [...(await failTimes(unknown, 10)), (await login(unknown, "one more guess")).status];
    expect(none).toEqual(known);
    const a = await login(org.email, "x-guess-again");
    const b = await login(unknown, "x-guess-again");
    expect(b.body).toEqual(a.body);
  });

  it("leaves other emails alone, and lets the right password in below the limit without using up a failure", async () => {
    const org = await newOrg(server.url);
    const other = await newOrg(server.url);
    await failTimes(other.email, 11);
    expect((await login(org.email, org.password)).status).toBe(200);
    await failTimes(org.email, 9);
    for (let i = 0; i < 3; i++) expect((await login(org.email, org.password)).status).toBe(200);
    expect((await login(org.email, "the tenth guess")).status).toBe(401);
    expect((await login(org.email, org.password)).status).toBe(429);
  });

  it("counts concurrent guesses exactly: of 30 at once, at most 10 are checked", async () => {
    const org = await newOrg(server.url);
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => login(org.email, `parallel guess ${i}`).then((r) => r.status)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });

  it("keeps one row per email, whatever the number of guesses", async () => {
    const email = `flood-${randomUUID()}@example.com`;
    await failTimes(email, 15);
    const { rows } = await server.db().query("SELECT failures FROM login_failures");
    expect(rows.length).toBeLessThan(50);
    expect(Math.max(...rows.map((r: { failures: number }) => r.failures))).toBe(11);
  });
});
