import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_SHARE, QuotaStore } from "../../src/cluster/quotaStore.js";
import { testPool, startServer, type TestServer } from "../helpers/server.js";

/** The rate_limit_quota statements on a real PostgreSQL; the server only provides the migrated database. */
let server: TestServer;
let pool: pg.Pool;
let store: QuotaStore;
beforeAll(async () => {
  server = await startServer();
  pool = testPool(server.databaseUrl, { max: 8 });
  store = new QuotaStore(pool);
}, 120_000);
afterAll(async () => {
  await store?.stop();
  await pool?.end();
  await server?.cleanup();
});

let nextOrg = 2_000_000;
const key = (org: number, windowStart = 0) => ({ org, scope: "", windowS: 60, windowStart });

describe("QuotaStore", () => {
  it("never grants past the max, however many leases run at once", async () => {
    const org = nextOrg++;
    const leases = await Promise.all(Array.from({ length: 60 }, () => store.lease(key(org), 100, 3)));
    expect(leases.reduce((n, l) => n + l.granted, 0)).toBe(100);
    expect(Math.max(...leases.map((l) => l.used))).toBe(100);
    expect(leases.filter((l) => l.granted === 0).length).toBeGreaterThan(0);
    expect((await store.lease(key(org), 100, 1)).granted).toBe(0);
  });

  it(`grants 1/${LEASE_SHARE} of what is left of the window's quota, or what the waiting requests need if more`, async () => {
    const org = nextOrg++;
    expect(await store.lease(key(org), 1000, 1)).toEqual({ used: 25, granted: 25 });
    expect(await store.lease(key(org), 1000, 1)).toEqual({ used: 50, granted: Math.ceil(975 / LEASE_SHARE) });
    expect(await store.lease(key(org), 1000, 100)).toEqual({ used: 150, granted: 100 });
    expect(await store.lease(key(org), 1000, 1000)).toEqual({ used: 1000, granted: 850 });
  });

  it("keeps each window, limit length and scope apart", async () => {
    const org = nextOrg++;
    await store.lease(key(org, 0), 2, 2);
    expect((await store.lease(key(org, 60), 2, 1)).granted).toBe(1);
    expect((await store.lease({ ...key(org), windowS: 30 }, 2, 1)).granted).toBe(1);
    expect((await store.lease({ ...key(org), scope: "10.0.0.1" }, 2, 1)).granted).toBe(1);
  });

  it("lowers each row's count by exactly what is given back, for several keys in one statement", async () => {
    const org = nextOrg++;
    const ip = { ...key(0), scope: `10.8.${org % 250}.1` };
    await store.lease(key(org), 1000, 1);
    await store.lease(ip, 10, 4);
    // The same key twice (a window held by two of the caller's entries) is summed.
    expect(
      await store.giveBack([
        { key: key(org), tokens: 20 },
        { key: ip, tokens: 3 },
        { key: key(org), tokens: 2 },
      ]),
    ).toBe(25);
    expect((await pool.query("SELECT used FROM rate_limit_quota WHERE org = $1", [org])).rows).toEqual([{ used: 3 }]);
    expect((await pool.query("SELECT used FROM rate_limit_quota WHERE org = 0 AND scope = $1", [ip.scope])).rows).toEqual([{ used: 1 }]);
    // What was given back is leased again.
    expect(await store.lease(key(org), 1000, 1)).toEqual({ used: 28, granted: 25 });
  });

  it("leaves a row alone when more is given back than it counts, or when it is gone", async () => {
    const org = nextOrg++;
    await store.lease(key(org), 1000, 1);
    expect(
      await store.giveBack([
        { key: key(org), tokens: 26 },
        { key: key(org, 60), tokens: 5 },
      ]),
    ).toBe(0);
    expect((await pool.query("SELECT window_start::float8 AS start, used FROM rate_limit_quota WHERE org = $1", [org])).rows).toEqual([
      { start: 0, used: 25 },
    ]);
  });

  it("keeps the count exact under concurrent leases and give-backs, and never grants past the max", async () => {
    const org = nextOrg++;
    const keys = [key(org), { ...key(org), scope: "a" }, { ...key(org), scope: "b" }];
    let kept = 0;
    // Each caller leases on every key, then gives back part of each lease in one statement, the keys in its own order.
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const mine = i % 2 ? keys : [...keys].reverse();
        const leases = await Promise.all(mine.map((k) => store.lease(k, 200, 1 + (i % 5))));
        const back = leases.map((l, j) => ({ key: mine[j], tokens: Math.floor(l.granted / 2) }));
        expect(await store.giveBack(back)).toBe(back.reduce((n, b) => n + b.tokens, 0));
        kept += leases.reduce((n, l) => n + l.granted, 0) - back.reduce((n, b) => n + b.tokens, 0);
      }),
    );
    const { rows } = await pool.query<{ used: number }>("SELECT used FROM rate_limit_quota WHERE org = $1", [org]);
    expect(rows.reduce((n, r) => n + r.used, 0)).toBe(kept);
    for (const r of rows) expect(r.used).toBeLessThanOrEqual(200);
  });

  it("prunes the windows that ended a minute or more ago, and only those", async () => {
    const org = nextOrg++;
    const nowS = 1_800_000_000;
    for (const start of [nowS - 200, nowS - 100, nowS - 30]) await store.lease(key(org, start), 10, 1);
    await store.prune(nowS * 1000);
    const { rows } = await pool.query("SELECT window_start::float8 AS start FROM rate_limit_quota WHERE org = $1 ORDER BY 1", [org]);
    expect(rows).toEqual([{ start: nowS - 100 }, { start: nowS - 30 }]);
  });
});
