import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { eventually, recommend } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one embedded PostgreSQL, which the test stops and starts again. */
const MAX = 10;
/** LOG_LEVEL=info: the line saying PostgreSQL answers again is how the test knows each process noticed. */
const env = { CLUSTER: "1", RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_S: "1000000000", LOG_LEVEL: "info" };
const WARNING = "rate-limit quota: PostgreSQL does not answer";
const RECOVERED = "rate-limit quota: PostgreSQL answers again";

let p1: TestServer;
let p2: TestServer;
let org: Org;
beforeAll(async () => {
  p1 = await startServer({ embedded: true, env });
  p2 = await startServer({ reuse: p1, env });
  org = await newOrg(p1.url);
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

const statusesOf = async (p: TestServer, n: number, o = org) => {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await recommend(p.url, o, { strategy: "popular" })).status);
  return statuses;
};

describe("the shared rate limit while PostgreSQL is down", () => {
  it("answers recommendations from each process up to the max counted locally, then 429, never an error", async () => {
    expect(await statusesOf(p1, 3)).toEqual([200, 200, 200]);
    await stopPostgres(p1);
    // p1 counts on from the 3 it admitted; p2 had leased nothing, so knows of no other use.
    expect(await statusesOf(p1, MAX)).toEqual([...Array(MAX - 3).fill(200), 429, 429, 429]);
    expect(await statusesOf(p2, MAX + 2)).toEqual([...Array(MAX).fill(200), 429, 429]);
    for (const p of [p1, p2]) expect(p.output().split(WARNING).length - 1).toBe(1);
  });

  it("shares the limit again in both processes once PostgreSQL answers, without a restart", async () => {
    await startPostgres(p1);
    // Each process tries a lease again at most once a second, on its next request, and logs when one succeeds.
    const back = await eventually(
      async () => {
        await statusesOf(p1, 1);
        await statusesOf(p2, 1);
        return [p1, p2].every((p) => p.output().includes(RECOVERED));
      },
      (ok) => ok,
      30_000,
    );
    expect(back.value).toBe(true);
    const fresh = await newOrg(p1.url);
    const statuses: number[] = [];
    for (let i = 0; i < 3 * MAX; i++) statuses.push(...(await statusesOf(i % 2 ? p2 : p1, 1, fresh)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(MAX);
    expect(statuses.slice(-MAX)).toEqual(Array(MAX).fill(429));
  });
});
