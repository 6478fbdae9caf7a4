import type { Worker } from "node:worker_threads";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, sendEvents, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { fromBuild } from "../helpers/build.js";
import type * as PoolModule from "../../src/recommend/recommenderPool.js";
import type { ShardObserver } from "../../src/recommend/recommenderPool.js";
import type * as SchemaModule from "../../src/recommend/schema.js";
import type * as ValidateModule from "../../src/recommend/validate.js";
import type * as AlsModule from "../../src/wire/als.js";
import type * as AnswerBatchModule from "../../src/wire/answerBatch.js";
import type * as BatchPackModule from "../../src/wire/batchPack.js";
import type { EventRow } from "../../src/wire/batchRows.js";
import type { RankRequest } from "../../src/wire/rank.js";

// From the build: the recommender starts its shards from the compiled worker files next to it.
const { RecommenderPool } = await fromBuild<typeof PoolModule>("src/recommend/recommenderPool.ts");
type RecommenderPool = PoolModule.RecommenderPool;
const { toRankRequest } = await fromBuild<typeof SchemaModule>("src/recommend/schema.ts");
const { validateRecommend } = await fromBuild<typeof ValidateModule>("src/recommend/validate.ts");
const { DEFAULT_ALS } = await fromBuild<typeof AlsModule>("src/wire/als.ts");
const { packBatch } = await fromBuild<typeof BatchPackModule>("src/wire/batchPack.ts");
const { readAnswers } = await fromBuild<typeof AnswerBatchModule>("src/wire/answerBatch.ts");

type Outcome = { code: string | undefined; message: string | undefined; answered: boolean };

let server: TestServer;
let org: Org;
let orgSeq: number;
const recommenders: RecommenderPool[] = [];

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  await sendEvents(server.url, org, [
    { user: "u1", item: "i1" },
    { user: "u1", item: "i2" },
  ]);
  const { rows } = await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId]);
  orgSeq = rows[0]!.seq;
});
afterAll(async () => {
  await Promise.all(recommenders.map((r) => r.close()));
  await server?.cleanup();
});

/** A second set of recommender threads, in this process, on the test server's database. */
async function startPool(timeoutMs: number, shards = 1, observer?: ShardObserver, orgQueueMax = 256): Promise<RecommenderPool> {
  const r = await RecommenderPool.start({
    databaseUrl: server.databaseUrl,
    shards,
    timeoutMs,
    orgQueueMax,
    als: DEFAULT_ALS,
    retrainIntervalMs: 600_000,
    observer,
  });
  recommenders.push(r);
  return r;
}

/** Asks for u1's recently viewed items; `calls` counts how often the answer callback ran. */
function rank(r: RecommenderPool, calls: { n: number }, seq = orgSeq): Promise<Outcome> {
  return rankWith(r, toRankRequest(seq, validateRecommend({ strategy: "recently-viewed", user_id: "u1" })), calls);
}

function rankWith(r: RecommenderPool, req: RankRequest, calls = { n: 0 }): Promise<Outcome & { scores?: number[] }> {
  return new Promise((resolve) => {
    r.rank(req, (err, value) => {
      calls.n++;
      const scores = value && (JSON.parse(Buffer.from(value.results).toString()) as Array<{ score: number }>).map((x) => x.score);
      resolve({ code: err?.code, message: err?.message, answered: value !== undefined, scores });
    });
  });
}

/** An observer that hears only of the asks a shard dropped past their deadline. */
function expiredObserver(expired: number[]): ShardObserver {
  return { restarted: () => {}, skipped: () => {}, expired: (_, asks) => expired.push(asks), trained: () => {}, sizes: () => {} };
}

/** Asks `req` of the pool; each answer (or refusal) appends `label` to `order` the moment its callback runs. */
function rankInOrder(r: RecommenderPool, req: RankRequest, label: string, order: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    r.rank(req, (err, value) => {
      order.push(label);
      resolve({ code: err?.code, message: err?.message, answered: value !== undefined });
    });
  });
}

/** A new organisation's seq (with one shard, every organisation shares the thread). */
async function newOrgSeq(): Promise<number> {
  const o = await newOrg(server.url);
  const { rows } = await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [o.orgId]);
  return rows[0]!.seq;
}

/** Organisations until one has each parity of seq: one per shard of two. */
async function orgPerShard(): Promise<Array<{ org: Org; seq: number }>> {
  const byShard: Array<{ org: Org; seq: number }> = [];
  while (!byShard[0] || !byShard[1]) {
    const o = await newOrg(server.url);
    const { rows } = await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [o.orgId]);
    byShard[rows[0]!.seq % 2] ??= { org: o, seq: rows[0]!.seq };
  }
  return byShard;
}

/** The shard's thread object: a new one once a dead one is replaced. */
function threadOf(r: RecommenderPool, shard: number): { worker: Worker } {
  return (r as unknown as { threads: Array<{ worker: Worker }> }).threads[shard]!;
}

/** Keeps this thread busy: nothing it is sent can be read meanwhile. */
function holdThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}

describe("RecommenderPool: the organisations of one shard served fairly", () => {
  const flooding = () => toRankRequest(orgSeq, validateRecommend({ strategy: "recently-viewed", user_id: "u1" }));

  it("answers another organisation's ask after at most 16 of the thousands a flooding organisation sent before it", async () => {
    // A deadline and a queue cap that nothing here reaches: only the order of service is measured.
    const r = await startPool(60_000, 1, undefined, 10_000);
    const bystander = toRankRequest(await newOrgSeq(), validateRecommend({ strategy: "popular" }));
    const order: string[] = [];
    // One event-loop turn: the 3,000 asks and then the bystander's travel in one message, in that order.
    const flood = Array.from({ length: 3_000 }, () => rankInOrder(r, flooding(), "A", order));
    const one = rankInOrder(r, bystander, "B", order);
    const outcomes = await Promise.all([...flood, one]);
    expect(outcomes.filter((o) => !o.answered)).toEqual([]);
    // A turn of a lane is at most 16 asks (workers/recommender/recommenderThread.ts TURN_MAX).
    expect(order.indexOf("B")).toBeLessThanOrEqual(16);
  });

  it("answers each organisation's asks in the order they were sent, however they interleave", async () => {
    const r = await startPool(60_000, 1, undefined, 10_000);
    const bystander = toRankRequest(await newOrgSeq(), validateRecommend({ strategy: "popular" }));
    const order: string[] = [];
    const asks: Array<Promise<Outcome>> = [];
    for (let k = 0; k < 600; k++) {
      asks.push(rankInOrder(r, flooding(), `A${k}`, order));
      if (k % 3 === 0) asks.push(rankInOrder(r, bystander, `B${k}`, order));
      // Some asks leave in later messages than others.
      if (k % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(asks);
    const of = (prefix: string) => order.filter((label) => label.startsWith(prefix)).map((label) => Number(label.slice(1)));
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    expect(of("A")).toEqual(sorted(of("A")));
    expect(of("B")).toEqual(sorted(of("B")));
    expect(of("A").length + of("B").length).toBe(800);
  });

  it("answers 503 unavailable at once to an organisation's asks beyond RECOMMEND_ORG_QUEUE_MAX, and answers another organisation's", async () => {
    const r = await startPool(60_000, 1, undefined, 10);
    const bystander = toRankRequest(await newOrgSeq(), validateRecommend({ strategy: "popular" }));
    const order: string[] = [];
    const flood = Array.from({ length: 50 }, () => rankInOrder(r, flooding(), "A", order));
    // The 40 asks past the cap were answered before any ask left this thread.
    expect(order).toEqual(Array.from({ length: 40 }, () => "A"));
    const other = rankInOrder(r, bystander, "B", order);
    const outcomes = await Promise.all(flood);
    const refused = outcomes.filter((o) => !o.answered);
    expect(refused.length).toBe(40);
    for (const o of refused) {
      expect(o.code).toBe("unavailable");
      expect(o.message).toMatch(/too many recommend requests of this organisation are waiting/);
    }
    expect(outcomes.slice(0, 10).every((o) => o.answered)).toBe(true);
    expect(await other).toMatchObject({ code: undefined, answered: true });
    // Its answered asks no longer count: it is served again.
    expect(await rankInOrder(r, flooding(), "A", order)).toMatchObject({ code: undefined, answered: true });
  });

  it("drops, without ranking them, the asks whose deadline passed before the shard reached them", async () => {
    const expired: number[] = [];
    const r = await startPool(100, 1, expiredObserver(expired));
    let answeredByThread = 0;
    threadOf(r, 0).worker.on("message", (raw: unknown) => {
      if (raw instanceof ArrayBuffer) readAnswers(raw, () => answeredByThread++);
    });
    const late = Array.from({ length: 20 }, () => rank(r, { n: 0 }));
    holdThread(350); // the asks leave after this, their deadline passed
    for (const o of await Promise.all(late)) expect(o).toMatchObject({ code: "unavailable", answered: false });
    // Asks after them, of the same organisation, are answered after the shard has reached them.
    let tries = 1;
    let later = await rank(r, { n: 0 });
    for (; !later.answered && tries < 5; tries++) later = await rank(r, { n: 0 });
    expect(later.answered).toBe(true);
    const { value: dropped } = await eventually(
      async () => expired.reduce((a, b) => a + b, 0),
      (n) => n >= 20,
    );
    expect(dropped).toBeGreaterThanOrEqual(20);
    expect(answeredByThread).toBeLessThanOrEqual(tries);
  });
});

describe("RecommenderPool (the front thread's client of the recommender threads)", () => {
  it("answers 503 unavailable when no answer has come by the deadline, and drops the answer that comes later", async () => {
    // 100 ms: long enough that a loaded machine still answers in time, well inside the 350 ms hold below.
    const r = await startPool(100);
    const calls = { n: 0 };
    const outcome = rank(r, calls);
    holdThread(350); // past the deadline and the next 100 ms sweep, before the ask has even left
    expect(await outcome).toMatchObject({ code: "unavailable", answered: false });
    expect((await outcome).message).toMatch(/did not answer in time/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls.n).toBe(1);
    // Not a broken recommender: held for no longer than the deadline, it answers (a loaded machine may miss a
    // 100 ms deadline once more; a broken pool would miss every one).
    let later = await rank(r, { n: 0 });
    for (let tries = 1; !later.answered && tries < 5; tries++) later = await rank(r, { n: 0 });
    expect(later).toMatchObject({ code: undefined, answered: true });
  });

  it("answers 503 unavailable while a shard that died is rebuilt, then answers again, and reports the restart", async () => {
    const restarts: number[] = [];
    const r = await startPool(2000, 1, {
      restarted: (shard) => restarts.push(shard),
      skipped: () => {},
      expired: () => {},
      trained: () => {},
      sizes: () => {},
    });
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
    const { value } = await eventually(
      () => rank(r, { n: 0 }),
      (o) => o.answered,
      20_000,
    );
    expect(value).toMatchObject({ code: undefined, answered: true });
    expect(restarts).toEqual([0]);
  });

  it("keeps answering for the organisations of the other shards while one shard is rebuilt", async () => {
    const [onDead, onLive] = await orgPerShard();
    for (const { org: o } of [onDead!, onLive!]) await sendEvents(server.url, o, [{ user: "u1", item: "i1" }]);
    const r = await startPool(2000, 2);
    const outcomes: Outcome[] = [];
    const dead = threadOf(r, 0);
    void dead.worker.terminate();
    // Ask the live shard, ten at a time, until the dead one answers again.
    const { value } = await eventually(
      async () => {
        outcomes.push(...(await Promise.all(Array.from({ length: 10 }, () => rank(r, { n: 0 }, onLive!.seq)))));
        return rank(r, { n: 0 }, onDead!.seq);
      },
      (o) => o.answered,
      20_000,
    );
    expect(value.answered).toBe(true);
    expect(threadOf(r, 0)).not.toBe(dead);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.answered)).toEqual([]);
  });

  it("counts a batch once when it reaches a rebuilding shard before the shard reads PostgreSQL", async () => {
    const [{ org: o, seq }] = await orgPerShard();
    await upsertItems(server.url, o, [{ item_id: "hit" }]);
    const eventId = randomUUID();
    const at = new Date().toISOString();
    const sent = await call(server.url, "POST", "/v1/events/ingest", {
      json: [{ user_id: "fan", event_family: "conversion", event_name: "purchase", item_id: "hit", event_id: eventId, timestamp: at }],
      apiKey: o.pk,
    });
    expect(sent.status).toBe(202);
    const r = await startPool(2000, 2);
    const popular = toRankRequest(seq, validateRecommend({ strategy: "popular" }));
    const before = await rankWith(r, popular);
    expect(before.scores?.length).toBe(1);
    const dead = threadOf(r, 0);
    void dead.worker.terminate();
    await eventually(
      async () => threadOf(r, 0) !== dead,
      (replaced) => replaced,
      5000,
    );
    // The same committed batch the server published, as it would reach the new thread while it starts.
    const row: EventRow = [seq, eventId, "fan", "hit", "conversion", "purchase", 5, null, null, null, at];
    const batch = { events: [row], items: [], users: [] };
    r.publish([seq], packBatch(batch), undefined);
    const { value: after } = await eventually(
      () => rankWith(r, popular),
      (v) => v.answered,
      20_000,
    );
    expect(after.scores![0]).toBeCloseTo(before.scores![0]!, 3);
  });

  it("applies a batch holding two shards' organisations on each shard, the bytes moved to one and copied for the other", async () => {
    const owners = await orgPerShard();
    for (const { org: o } of owners) await upsertItems(server.url, o, [{ item_id: "both" }]);
    const r = await startPool(2000, 2);
    const at = new Date().toISOString();
    const rows: EventRow[] = owners.map(({ seq }) => [seq, randomUUID(), "fan", "both", "conversion", "purchase", 5, null, null, null, at]);
    const packed = packBatch({ events: rows, items: [], users: [] });
    r.publish(
      owners.map((o) => o.seq),
      packed,
      undefined,
    );
    expect(packed.buffer.byteLength).toBe(0); // moved to the last owner
    await r.catchUp();
    for (const { seq } of owners) {
      const answer = await rankWith(r, toRankRequest(seq, validateRecommend({ strategy: "popular" })));
      expect(answer.scores).toHaveLength(1);
      expect(answer.scores![0]).toBeGreaterThan(0);
    }
  });

  it("answers for the organisations a rebuilding shard has read while it still reads a larger one", async () => {
    const [{ org: small, seq: smallSeq }, { seq: bigSeq }] = await orgPerShard().then((o) => [o[0]!, o[1]!]);
    await sendEvents(server.url, small, [{ user: "u1", item: "i1" }]);
    // 300,000 events for the other organisation, written straight into PostgreSQL: its read takes a while.
    await server.db().query(
      `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at)
       SELECT $1, gen_random_uuid(), 'u' || (g % 5000), 'i' || (g % 3000), 'engagement', 'view', 1, now() - g * interval '1 second'
       FROM generate_series(1, 300000) AS g`,
      [bigSeq],
    );
    const r = await startPool(2000, 1);
    const dead = threadOf(r, 0);
    void dead.worker.terminate();
    await eventually(
      async () => threadOf(r, 0) !== dead,
      (replaced) => replaced,
      5000,
    );
    const { value: first } = await eventually(
      () => rank(r, { n: 0 }, smallSeq),
      (o) => o.answered,
      20_000,
    );
    const big = await rank(r, { n: 0 }, bigSeq);
    expect(first.answered).toBe(true);
    expect(big).toMatchObject({ code: "unavailable", answered: false });
    expect(big.message).toMatch(/loading/);
    const { value: later } = await eventually(
      () => rank(r, { n: 0 }, bigSeq),
      (o) => o.answered,
      30_000,
    );
    expect(later.answered).toBe(true);
  });
});
