import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg, viewEvent, type ApiResponse } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

/**
 * Two processes with CLUSTER=1 on one PostgreSQL share each limit. Windows are aligned to the epoch: one of
 * 10^9 seconds runs from 2001 to 2033, so it cannot roll over during the test.
 */
const WINDOW_S = 1_000_000_000;
const MAX = 40;
const AUTH_MAX = 10;
const env = {
  CLUSTER: "1",
  RATE_LIMIT_MAX: String(MAX),
  RATE_LIMIT_WINDOW_S: String(WINDOW_S),
  AUTH_RATE_LIMIT_MAX: String(AUTH_MAX),
  AUTH_RATE_LIMIT_WINDOW_S: String(WINDOW_S),
};

let p1: TestServer;
let p2: TestServer;
beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env });
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const ingest = (p: TestServer, pk: string) => call(p.url, "POST", "/v1/events/ingest", { apiKey: pk, json: viewEvent("u", "i") });
const login = (p: TestServer, ip: string, email = "nobody@example.com") =>
  call(p.url, "POST", "/auth/login", { json: { email, password: "not the password" }, headers: { "x-forwarded-for": ip } });

interface Answer {
  process: number;
  r: ApiResponse;
}

/** The headers' account of each answer, checked against what both processes had admitted by then. */
function checkHeaders(answers: Answer[], max: number, admittedStatus: number): void {
  let admitted = 0;
  const lastRemaining = [Infinity, Infinity];
  for (const { process, r } of answers) {
    expect([admittedStatus, 429]).toContain(r.status);
    if (r.status === admittedStatus) admitted++;
    const remaining = Number(r.headers.get("ratelimit-remaining"));
    expect(r.headers.get("ratelimit-limit")).toBe(String(max));
    expect(r.headers.get("ratelimit-policy")).toBe(`${max};w=${WINDOW_S}`);
    // What is truly left, give or take what the other process admitted since this one last heard from
    // PostgreSQL, or holds unspent: a chunk or two at these limits.
    expect(Math.abs(remaining - (max - admitted))).toBeLessThanOrEqual(2);
    // Each process's count only goes down.
    expect(remaining).toBeLessThanOrEqual(lastRemaining[process]);
    lastRemaining[process] = remaining;
    if (r.status === 429) {
      expect(r.body.error).toBe("rate_limited");
      expect(remaining).toBe(0);
      expect(r.headers.get("retry-after")).toBe(r.headers.get("ratelimit-reset"));
    }
  }
}

describe("rate limits shared by two processes with CLUSTER=1", () => {
  it("admits an organisation's max, within 5 % and never more, across requests alternating between the processes", async () => {
    const org = await newOrg(p1.url);
    const answers: Answer[] = [];
    for (let i = 0; i < 3 * MAX; i++) answers.push({ process: i % 2, r: await ingest(i % 2 ? p2 : p1, org.pk) });
    const admitted = answers.filter((a) => a.r.status === 202).length;
    expect(admitted).toBeLessThanOrEqual(MAX);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * MAX);
    checkHeaders(answers, MAX, 202);
    // The window's real end (in 2033), not one of each process's own.
    const windowEndS = Math.ceil(Date.now() / 1000 / WINDOW_S) * WINDOW_S;
    const reset = Number(answers.at(-1)!.r.headers.get("ratelimit-reset"));
    expect(Math.abs(reset - (windowEndS - Date.now() / 1000))).toBeLessThan(60);
    expect(answers.slice(-MAX).every((a) => a.r.status === 429)).toBe(true);
  });

  it("admits an organisation's max, within 5 % and never more, under concurrent requests spread at random", async () => {
    const org = await newOrg(p1.url);
    const statuses: number[] = [];
    for (let burst = 0; burst < 12; burst++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => ingest(Math.random() < 0.5 ? p1 : p2, org.pk)));
      statuses.push(...answers.map((r) => r.status));
    }
    const admitted = statuses.filter((s) => s === 202).length;
    expect(statuses.filter((s) => s !== 202 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(MAX);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * MAX);
  });

  it("admits a client IP's sign-in attempts up to the max across both processes, then answers 429 on either", async () => {
    const ip = freshIp();
    const answers: Answer[] = [];
    for (let i = 0; i < 3 * AUTH_MAX; i++) answers.push({ process: i % 2, r: await login(i % 2 ? p2 : p1, ip) });
    expect(answers.filter((a) => a.r.status === 401).length).toBe(AUTH_MAX);
    checkHeaders(answers, AUTH_MAX, 401);
    const register = await call(p2.url, "POST", "/auth/register", {
      json: { email: "x@example.com", password: "1234567890", organisation: "X" },
      headers: { "x-forwarded-for": ip },
    });
    expect(register.status).toBe(429);
    // Another email: nobody@example.com has failed 10 times, which locks it from every address (test/accounts/loginThrottle.test.ts).
    expect((await login(p1, freshIp(), "somebody-else@example.com")).status).toBe(401);
  });

  it("gives back the quota a process holds when it stops (SIGTERM), so that the processes staying admit all the rest", async () => {
    const p3 = await startServer({ reuse: p1, env });
    try {
      const org = await newOrg(p1.url);
      // p3 leases a chunk of 1 at a time (1/40 of 40) and fetches the next as it admits: it holds one unspent.
      for (let i = 0; i < 3; i++) expect((await ingest(p3, org.pk)).status).toBe(202);
      expect(await p3.stop()).toBe(0);
      const statuses: number[] = [];
      for (let i = 0; i < MAX; i++) statuses.push((await ingest(p1, org.pk)).status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(MAX - 3);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await p3.stop();
    }
  });
});
