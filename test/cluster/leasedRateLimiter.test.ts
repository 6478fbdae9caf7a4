import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { LeasedRateLimiter } from "../../src/cluster/leasedRateLimiter.js";
import { QuotaStore } from "../../src/cluster/quotaStore.js";
import { startServer, freePort, type TestServer } from "../helpers/server.js";

/** Several limiters on one real PostgreSQL, as several processes would hold them; the server only provides the database. */
let server: TestServer;
const pools: pg.Pool[] = [];
const stores: QuotaStore[] = [];
const limiters: LeasedRateLimiter[] = [];

beforeAll(async () => {
  server = await startServer();
}, 120_000);
afterAll(async () => {
  for (const l of limiters) await l.stop();
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

/** Idle keys give back after 250-500 ms here, not the service's 2.5-5 s, so that the tests wait less. */
const GIVE_BACK_TEST_MS = 250;

function limiterOn(url: string, clock?: () => number): LeasedRateLimiter {
  const limiter = new LeasedRateLimiter(storeOn(url), "organisation", clock, GIVE_BACK_TEST_MS);
  limiters.push(limiter);
  return limiter;
}

const limitersOn = (url: string, n: number) => Array.from({ length: n }, () => limiterOn(url));

/** One request counted as the service counts it: at once, or after waiting for a lease. */
const ask = async (l: LeasedRateLimiter, org: number, max: number) => l.tryCount(org, max, LONG) ?? (await l.count(org, max, LONG));

/**
 * Requests on each limiter in turn, 5 ms apart, until the admitted reach `target` or `ms` passed; then 100 more,
 * which must all be refused. Resolves to how many were admitted.
 */
async function askUntil(ls: LeasedRateLimiter[], org: number, max: number, admittedBefore: number, target: number, ms: number): Promise<number> {
  let admitted = 0;
  const end = Date.now() + ms;
  for (let i = 0; admittedBefore + admitted < target && Date.now() < end; i++) {
    if ((await ask(ls[i % ls.length], org, max)).allowed) admitted++;
    await sleep(5);
  }
  for (let i = 0; i < 100; i++) if ((await ask(ls[i % ls.length], org, max)).allowed) admitted++;
  return admitted;
}

async function usedOf(org: number): Promise<number> {
  const { rows } = await server.db().query<{ used: number }>("SELECT used FROM rate_limit_quota WHERE org = $1", [org]);
  return rows[0].used;
}

/** Epoch-aligned windows of 10^9 s run from 2001 to 2033: none rolls during a test that does not move the clock. */
const LONG = 1_000_000_000;
let nextOrg = 1_000_000;

describe("LeasedRateLimiter on one PostgreSQL", () => {
  it("admits between four limiters the max and never more, whatever the interleaving", async () => {
    const ls = limitersOn(server.databaseUrl, 4);
    const org = nextOrg++;
    const max = 1000;
    let admitted = 0;
    let refused = 0;
    for (let round = 0; round < 60; round++) {
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => ask(ls[(i * 7 + round) % 4], org, max)));
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

  it("admits exactly the max when a process stops getting traffic while holding a lease: it gives the lease back", async () => {
    const [idle, ...busy] = limitersOn(server.databaseUrl, 4);
    const org = nextOrg++;
    const max = 1000;
    let admitted = 0;
    for (let i = 0; i < 3; i++) if ((await idle.count(org, max, LONG)).allowed) admitted++;
    // The busy ones spend what is left at once, likely before the idle one gives its chunk back (978 or so then)...
    for (let i = 0; i < 2 * max; i++) if ((await ask(busy[i % 3], org, max)).allowed) admitted++;
    // ...and find it given back when they ask again: a refused request asks PostgreSQL now and then.
    admitted += await askUntil(busy, org, max, admitted, max, 5000);
    expect(admitted).toBe(max);
    expect(await usedOf(org)).toBe(max);
  });

  it("admits exactly the max when three of four processes stop getting traffic while holding leases", async () => {
    const [busy, ...idle] = limitersOn(server.databaseUrl, 4);
    const org = nextOrg++;
    const max = 1000;
    let admitted = 0;
    for (const l of idle) for (let i = 0; i < 2; i++) if ((await l.count(org, max, LONG)).allowed) admitted++;
    // Three chunks of about 25 held: about 7 % of the limit, which the idle processes would otherwise sit on.
    for (let i = 0; i < 2 * max; i++) if ((await ask(busy, org, max)).allowed) admitted++;
    admitted += await askUntil([busy], org, max, admitted, max, 5000);
    expect(admitted).toBe(max);
    expect(await usedOf(org)).toBe(max);
  });

  it("never admits past the max while processes turn busy and idle at random, and PostgreSQL ends counting what they admitted", async () => {
    const ls = limitersOn(server.databaseUrl, 4);
    const org = nextOrg++;
    const max = 2000;
    let admitted = 0;
    let refused = 0;
    // At least 3 s, and on until the quota is spent and refusals have come for a second (a slow machine takes longer).
    const started = Date.now();
    let spentAt = Infinity;
    const going = () => Date.now() - started < 3000 || Date.now() - spentAt < 1000;
    await Promise.all(
      ls.map(async (l) => {
        while (going() && Date.now() - started < 60_000) {
          // Idle long enough to give back what it holds, or busy for a while with up to 4 requests at once.
          if (Math.random() < 0.5) {
            await sleep(300 + Math.random() * 400);
            continue;
          }
          const until = Date.now() + 50 + Math.random() * 300;
          while (Date.now() < until) {
            const results = await Promise.all(Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => ask(l, org, max)));
            for (const r of results)
              if (r.allowed) admitted++;
              else refused++;
            if (refused > 0) spentAt = Math.min(spentAt, Date.now());
            await sleep(2);
          }
        }
      }),
    );
    expect(admitted).toBeLessThanOrEqual(max);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * max);
    expect(refused).toBeGreaterThan(0);
    // Once each has given back what it holds, PostgreSQL counts exactly what they admitted: no token was given
    // back twice, nor one admitted.
    for (const l of ls) await l.stop();
    expect(await usedOf(org)).toBe(admitted);
  });

  it("keeps its chunk while a key gets a request every 600 ms, so none of them waits for PostgreSQL", async () => {
    // The service's timer, not the tests' quicker one.
    const l = new LeasedRateLimiter(storeOn(server.databaseUrl), "organisation");
    limiters.push(l);
    const org = nextOrg++;
    expect((await l.count(org, 1000, LONG)).allowed).toBe(true);
    const used: number[] = [];
    for (let i = 0; i < 6; i++) {
      await sleep(600);
      // Answered from the chunk held: tryCount answers only without a round trip.
      expect(l.tryCount(org, 1000, LONG)?.allowed).toBe(true);
      used.push(await usedOf(org));
    }
    // Nothing given back in 3.6 s of requests: PostgreSQL's count never went down.
    expect(used).toEqual([...used].sort((a, b) => a - b));
    expect(used[0]).toBe(25);
  });

  it("gives back on stop what it holds unspent, so that PostgreSQL counts only what it admitted", async () => {
    const [a, b] = limitersOn(server.databaseUrl, 2);
    const org = nextOrg++;
    const max = 1000;
    for (let i = 0; i < 3; i++) expect((await a.count(org, max, LONG)).allowed).toBe(true);
    expect(await usedOf(org)).toBe(25);
    await a.stop();
    expect(await usedOf(org)).toBe(3);
    let admitted = 0;
    for (let i = 0; i < max; i++) if ((await ask(b, org, max)).allowed) admitted++;
    expect(admitted).toBe(max - 3);
  });

  it("counts the quota another process gave back as remaining, once this one leases again", async () => {
    const [a, b] = limitersOn(server.databaseUrl, 2);
    const org = nextOrg++;
    const max = 1000;
    for (let i = 0; i < 3; i++) await b.count(org, max, LONG);
    // b's chunk of 25 goes back once it has admitted nothing for a turn of its timer.
    const deadline = Date.now() + 3000;
    while ((await usedOf(org)) !== 3 && Date.now() < deadline) await sleep(20);
    expect(await usedOf(org)).toBe(3);
    expect((await a.count(org, max, LONG)).remaining).toBe(max - 4);
  });

  it("reports as remaining the quota last learned from PostgreSQL less what this process admitted since", async () => {
    const [a, b] = limitersOn(server.databaseUrl, 2);
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
