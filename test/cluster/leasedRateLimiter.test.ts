import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LeasedRateLimiter } from "../../src/cluster/leasedRateLimiter.js";
import { QuotaStore } from "../../src/cluster/quotaStore.js";
import { startServer, freePort, type TestServer } from "../helpers/server.js";

/** Several limiters on one real PostgreSQL, as several processes would hold them; the server only provides the database. */
let server: TestServer;
const pools: pg.Pool[] = [];
const stores: QuotaStore[] = [];

beforeAll(async () => {
  server = await startServer();
}, 120_000);
afterAll(async () => {
  for (const s of stores) await s.stop();
  for (const p of pools) await p.end();
  await server?.cleanup();
});

function storeOn(url: string): QuotaStore {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 2000 });
  pool.on("error", () => undefined); // the unreachable database's pool: failures reach the limiter through its queries
  pools.push(pool);
  const store = new QuotaStore(pool);
  stores.push(store);
  return store;
}

/** Epoch-aligned windows of 10^9 s run from 2001 to 2033: none rolls during a test that does not move the clock. */
const LONG = 1_000_000_000;
let nextOrg = 1_000_000;

describe("LeasedRateLimiter on one PostgreSQL", () => {
  it("admits between four limiters the max and never more, whatever the interleaving", async () => {
    const limiters = Array.from({ length: 4 }, () => new LeasedRateLimiter(storeOn(server.databaseUrl), "organisation"));
    const org = nextOrg++;
    const max = 1000;
    let admitted = 0;
    let refused = 0;
    for (let round = 0; round < 60; round++) {
      const results = await Promise.all(
        Array.from({ length: 25 }, async (_, i) => {
          const l = limiters[(i * 7 + round) % 4];
          return l.tryCount(org, max, LONG) ?? (await l.count(org, max, LONG));
        }),
      );
      for (const r of results) {
        if (r.allowed) admitted++;
        else refused++;
      }
    }
    expect(admitted + refused).toBe(1500);
    expect(admitted).toBeLessThanOrEqual(max);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * max);
    const { rows } = await server.db().query("SELECT used FROM rate_limit_quota WHERE org = $1", [org]);
    expect(rows).toEqual([{ used: max }]);
  });

  it("admits at least 95 % of the max when a process stops getting traffic while holding a lease", async () => {
    const [idle, ...busy] = Array.from({ length: 4 }, () => new LeasedRateLimiter(storeOn(server.databaseUrl), "organisation"));
    const org = nextOrg++;
    const max = 1000;
    let admitted = 0;
    for (let i = 0; i < 3; i++) if ((await idle.count(org, max, LONG)).allowed) admitted++;
    // Its prefetch may still be in flight: the others' requests race it, as they would.
    for (let i = 0; i < 2 * max; i++) {
      const l = busy[i % 3];
      if ((l.tryCount(org, max, LONG) ?? (await l.count(org, max, LONG))).allowed) admitted++;
    }
    expect(admitted).toBeLessThanOrEqual(max);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * max);
  });

  it("reports as remaining the quota last learned from PostgreSQL less what this process admitted since", async () => {
    const [a, b] = [
      new LeasedRateLimiter(storeOn(server.databaseUrl), "organisation"),
      new LeasedRateLimiter(storeOn(server.databaseUrl), "organisation"),
    ];
    const org = nextOrg++;
    const first = await a.count(org, 40, LONG);
    expect(first).toMatchObject({ allowed: true, limit: 40, remaining: 39, policy: `40;w=${LONG}` });
    const second = await b.count(org, 40, LONG);
    // b leased after a's first chunk (and its prefetch, if that came back first): it knows of them as spent.
    expect(second.remaining).toBeLessThanOrEqual(38);
    expect(second.remaining).toBeGreaterThanOrEqual(36);
    // The window's real end (in 2033), give or take the second that may tick between the answer and this line.
    const untilEnd = Math.ceil(Date.now() / 1000 / LONG) * LONG - Date.now() / 1000;
    expect(Math.abs(second.resetS - untilEnd)).toBeLessThanOrEqual(1);
  });

  it("starts a new window at the epoch-aligned boundary, in every limiter alike", async () => {
    let now = 3_600_000 * 500_000; // on an hour's boundary
    const clock = () => now;
    const [a, b] = [
      new LeasedRateLimiter(storeOn(server.databaseUrl), "sign-in", clock),
      new LeasedRateLimiter(storeOn(server.databaseUrl), "sign-in", clock),
    ];
    const ip = `10.9.${nextOrg++ % 250}.1`;
    const statuses: boolean[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await (i % 2 ? a : b).count(ip, 3, 3600)).allowed);
    expect(statuses).toEqual([true, true, true, false]);
    now += 3_599_000;
    const last = await a.count(ip, 3, 3600);
    expect(last).toMatchObject({ allowed: false, remaining: 0, resetS: 1 });
    now += 1000;
    const fresh = [await a.count(ip, 3, 3600), await b.count(ip, 3, 3600)];
    expect(fresh.map((r) => r.allowed)).toEqual([true, true]);
    expect(fresh[0].resetS).toBe(3600);
    const { rows } = await server
      .db()
      .query("SELECT window_start::float8 AS start, used FROM rate_limit_quota WHERE org = 0 AND scope = $1 ORDER BY 1", [ip]);
    expect(rows).toEqual([
      { start: now / 1000 - 3600, used: 3 },
      { start: now / 1000, used: expect.any(Number) },
    ]);
  });

  it("counts locally against the max when PostgreSQL does not answer, so that requests still get answers", async () => {
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/none`;
    const limiter = new LeasedRateLimiter(storeOn(unreachable), "organisation");
    const org = nextOrg++;
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk, ...rest) => {
      if (String(chunk).includes("rate-limit quota")) warnings.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
    const results = [];
    try {
      for (let i = 0; i < 6; i++) results.push(limiter.tryCount(org, 5, LONG) ?? (await limiter.count(org, 5, LONG)));
    } finally {
      spy.mockRestore();
    }
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: "warn", limit: "organisation" });
  });
});
