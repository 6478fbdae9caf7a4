import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, freshIp, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { startHaproxy, type Balancer } from "../helpers/haproxy.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { eventually } from "../helpers/recommend.js";
import { freePort, startDatabase, startServer, type TestDatabase, type TestServer } from "../helpers/server.js";
import { notStoredOnce, outcomes, randomRequests, storedCounts, stream } from "../helpers/traffic.js";
import { parsePrometheusText, valueOf } from "../metrics/prometheusText.js";

const METRICS_TOKEN = "cluster-test-metrics-token";
/** The per-IP sign-in limit (the setting's default, named here for the test that counts it). */
const AUTH_RATE_LIMIT_MAX = 10;
/** As several processes run (docs/scaling.md), with an organisation limit the mixed load cannot reach. */
const env = (port: number) => ({
  METRICS_TOKEN,
  PORT: String(port),
  CLUSTER: "1",
  RATE_LIMIT_MAX: "1000000",
  AUTH_RATE_LIMIT_MAX: String(AUTH_RATE_LIMIT_MAX),
});
let ports: [number, number];
/** The embedded PostgreSQL, started by the test itself (a process killed with SIGKILL takes its own embedded cluster with it). */
let database: TestDatabase;
let p1: TestServer;
let p2: TestServer;
let lb: Balancer;
let org: Org;

// Two processes on one PostgreSQL (embedded, so the test can stop it), on fixed ports so a process can come back where HAProxy looks.
beforeAll(async () => {
  database = await startDatabase({ embedded: true });
  ports = [await freePort(), await freePort()];
  p1 = await startServer({ reuse: database, env: env(ports[0]) });
  p2 = await startServer({ reuse: database, env: env(ports[1]) });
  lb = await startHaproxy([p1, p2]);
  org = await newOrg(lb.url);
}, 180_000);
afterAll(async () => {
  await lb?.stop();
  await Promise.all([p1?.stop(), p2?.stop()]);
  await database?.cleanup();
});

/** GET on a connection of its own (no keep-alive), so that each request is balanced anew. */
function freshGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
    req.end();
  });
}

/** How many GET /openapi.json a process has answered 200 (HAProxy's checks ask for /readyz and /healthz only). */
async function documentsServed(p: TestServer): Promise<number> {
  const r = await call(p.url, "GET", "/metrics", { token: METRICS_TOKEN });
  return valueOf(parsePrometheusText(String(r.body)), "recsvc_http_requests_total", { route: "/openapi.json", method: "GET", status: "200" });
}

/** Recommend requests through HAProxy, `concurrency` at a time until stopped: each answer's status (or network error) in order. */
function recommending(concurrency: number): { statuses: Array<number | string>; stop: () => Promise<void> } {
  const statuses: Array<number | string> = [];
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      try {
        statuses.push((await call(lb.url, "POST", "/v1/recommend", { apiKey: org.pk, json: { strategy: "popular" } })).status);
      } catch (err) {
        statuses.push((err as Error).message);
      }
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  return {
    statuses,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

async function spreadOver(processes: TestServer[], requests = 40): Promise<number[]> {
  const before = await Promise.all(processes.map(documentsServed));
  for (let i = 0; i < requests; i++) expect(await freshGet(lb.url + "/openapi.json")).toBe(200);
  const after = await Promise.all(processes.map(documentsServed));
  return after.map((n, i) => n - before[i]);
}

describe("two processes on one PostgreSQL behind HAProxy (docs/haproxy.cfg)", () => {
  it("lets either process take a request: forty fresh connections through HAProxy reach both", async () => {
    const served = await spreadOver([p1, p2]);
    expect(served.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.min(...served)).toBeGreaterThan(0);
  });

  it("accepts in each process the dashboard token and the keys made through the other", async () => {
    const o = await newOrg(p1.url);
    const me = await call(p2.url, "GET", "/v1/me", { token: o.token });
    expect([me.status, me.body.data?.organisation?.id]).toEqual([200, o.orgId]);
    expect((await call(p2.url, "POST", "/v1/events/ingest", { apiKey: o.pk, json: viewEvent("u-1", "i-1") })).status).toBe(202);
    expect((await call(p2.url, "POST", "/v1/keys", { token: o.token })).status).toBe(201);
  });

  it("counts sign-ins through HAProxy by the real address whatever X-Forwarded-For the client forges: 429 past the per-IP limit, and the real address audited", async () => {
    // Through HAProxy the test's own address is 127.0.0.1; the forged headers claim a new address each time.
    const forged = () => ({ "x-forwarded-for": `${freshIp()}, ${freshIp()}` });
    const ok = await call(lb.url, "POST", "/auth/login", { json: { email: org.email, password: org.password }, headers: forged() });
    expect(ok.status).toBe(200);
    const { rows } = await database.db().query("SELECT ip FROM audit_log WHERE action = 'auth.login' AND target = $1", [org.email]);
    expect(rows).toEqual([{ ip: "127.0.0.1" }]);

    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const r = await call(lb.url, "POST", "/auth/login", { json: { email: org.email, password: "not the password" }, headers: forged() });
      statuses.push(r.status);
    }
    // The registration and the login above counted too; the two processes lease the limit (a chunk may be unspent).
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(AUTH_RATE_LIMIT_MAX);
    expect(statuses.slice(-15)).toEqual(Array(15).fill(429));
  });

  it("moves the traffic off a process killed with SIGKILL under mixed load, storing every acknowledged event exactly once", async () => {
    const load = stream(lb.url, org.pk, randomRequests(800, 1, 20), 16);
    const asking = recommending(4);
    await load.whenAnswered(150);
    await p1.kill();
    const killedAt = load.answered;
    await load.whenAnswered(killedAt + 300);
    load.stop();
    await Promise.all([load.done, asking.stop()]);
    // Recommendations too: once HAProxy has seen the kill, every one is answered (from the survivor's memory).
    expect(asking.statuses.length).toBeGreaterThan(100);
    expect(asking.statuses.slice(-50).filter((s) => s !== 200)).toEqual([]);
    const answered = load.requests.filter((r) => r.status !== undefined);
    // Requests cut off by the kill may fail; once HAProxy has seen it (checks every 500 ms), every answer is a 202.
    expect(
      answered.slice(-150).filter((r) => r.status !== 202),
      JSON.stringify(outcomes(load.requests)),
    ).toEqual([]);
    const acked = answered.filter((r) => r.status === 202).flatMap((r) => r.ids);
    expect(notStoredOnce(acked, await storedCounts(p2.db(), org.orgId)).slice(0, 5)).toEqual([]);
  });

  it("sends traffic to the killed process again once it is back and ready", async () => {
    p1 = await startServer({ reuse: database, env: env(ports[0]) });
    await eventually(
      () => spreadOver([p1, p2], 10),
      ([toP1]) => toP1 > 0,
      10_000,
    );
  });

  it("answers ingestion 503 unavailable in the API's envelope while PostgreSQL is down, still recommends, and recovers by itself", async () => {
    await stopPostgres(database);
    try {
      const { value: refused } = await eventually(
        () => call(lb.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u-2", "i-2") }),
        (r) => r.status === 503,
        10_000,
      );
      expect(refused.body).toMatchObject({ success: false, error: "unavailable" });
      // Once HAProxy sees no process ready, it sends to the live ones: recommendations still come from memory.
      await eventually(async () => lb.output().includes("backend 'ready' has no server available"), Boolean, 15_000);
      const { value: ranked } = await eventually(
        () => call(lb.url, "POST", "/v1/recommend", { apiKey: org.pk, json: { strategy: "popular" } }),
        (r) => r.status === 200,
        10_000,
      );
      expect(ranked.body.success).toBe(true);
    } finally {
      await startPostgres(database);
    }
    const { value: accepted } = await eventually(
      () => call(lb.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u-3", "i-3") }),
      (r) => r.status === 202,
      20_000,
    );
    expect(accepted.status).toBe(202);
  });
});
