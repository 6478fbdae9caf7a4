import type { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, sendEvents } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
// From the build: the recommender starts its shards from the compiled worker files next to it.
import { Recommender } from "../../dist/src/recommend/recommender.js";
import { toRankRequest } from "../../dist/src/recommend/schema.js";
import { validateRecommend } from "../../dist/src/recommend/validate.js";
import { DEFAULT_ALS } from "../../dist/workers/training/als.js";

type Outcome = { code: string | undefined; message: string | undefined; answered: boolean };

let server: TestServer;
let org: Org;
let orgSeq: number;
const recommenders: Recommender[] = [];

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  await sendEvents(server.url, org, [{ user: "u1", item: "i1" }, { user: "u1", item: "i2" }]);
  const { rows } = await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId]);
  orgSeq = rows[0]!.seq;
});
afterAll(async () => {
  await Promise.all(recommenders.map((r) => r.close()));
  await server?.cleanup();
});

/** A second set of recommender threads, in this process, on the test server's database. */
async function startRecommender(timeoutMs: number): Promise<Recommender> {
  const r = await Recommender.start({ databaseUrl: server.databaseUrl, shards: 1, timeoutMs, als: DEFAULT_ALS, retrainIntervalMs: 600_000 });
  recommenders.push(r);
  return r;
}

/** Asks for u1's recently viewed items; `calls` counts how often the answer callback ran. */
function rank(r: Recommender, calls: { n: number }): Promise<Outcome> {
  const req = toRankRequest(orgSeq, validateRecommend({ strategy: "recently-viewed", user_id: "u1" }));
  return new Promise((resolve) => {
    r.rank(req, (err, value) => {
      calls.n++;
      resolve({ code: err?.code, message: err?.message, answered: value !== undefined });
    });
  });
}

/** Keeps this thread busy: nothing it is sent can be read meanwhile. */
function holdThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

describe("Recommender (the front thread's side of the shards)", () => {
  it("answers 503 unavailable when no answer has come by the deadline, and drops the answer that comes later", async () => {
    // 100 ms: long enough that a loaded machine still answers in time, well inside the 350 ms hold below.
    const r = await startRecommender(100);
    const calls = { n: 0 };
    const outcome = rank(r, calls);
    holdThread(350); // past the deadline and the next 100 ms sweep, before the ask has even left
    expect(await outcome).toMatchObject({ code: "unavailable", answered: false });
    expect((await outcome).message).toMatch(/did not answer in time/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls.n).toBe(1);
    // Not a broken recommender: held for no longer than the deadline, it answers.
    expect(await rank(r, { n: 0 })).toMatchObject({ code: undefined, answered: true });
  });

  it("answers 503 unavailable while a shard that died is rebuilt, then answers again", async () => {
    const r = await startRecommender(2000);
    expect(await rank(r, { n: 0 })).toMatchObject({ code: undefined, answered: true });
    const inFlight = rank(r, { n: 0 });
    // A thread that dies (an uncaught error, say) is simulated by ending it.
    const threads = (r as unknown as { threads: Array<{ worker: Worker }> }).threads;
    void threads[0]!.worker.terminate();
    const pending = await inFlight;
    expect(pending).toMatchObject({ code: "unavailable", answered: false });
    expect(pending.message).toMatch(/restarted/);
    const whileLoading = await rank(r, { n: 0 });
    expect(whileLoading).toMatchObject({ code: "unavailable", answered: false });
    expect(whileLoading.message).toMatch(/loading/);
    const { value } = await eventually(() => rank(r, { n: 0 }), (o) => o.answered, 20_000);
    expect(value).toMatchObject({ code: undefined, answered: true });
  });
});
