/**
 * `npm run bench:fairness` (issue 34): how long a bystander organisation waits for `popular` (one ask at a time, 10
 * ms apart) while a hostile one on the same recommender thread sends bursts of personalized, also-viewed and
 * similar: a RecommenderPool of one shard in this process, both organisations written by SQL. Prints the hostile
 * asks answered while each bystander ask waited (the order of service, which the machine's load does not blur)
 * and the bystander's wait. BENCH_BASELINE_DIST: an older build's dist/, whose pool runs too, alternated (build it
 * with `git archive <commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npx
 * tsc -p tsconfig.json)`). BENCH_DATABASE_URL as for bench:ingest.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import * as ThisBuild from "../../src/recommend/recommenderPool.js";
import { toRankRequest } from "../../src/recommend/schema.js";
import { validateRecommend } from "../../src/recommend/validate.js";
import { DEFAULT_ALS } from "../../src/wire/als.js";
import type { RankRequest } from "../../src/wire/rank.js";
import { fromEnv, POSITIVE, WHOLE } from "../kit/flags.js";
import { connectionUrl, insertViews } from "../kit/storage.js";
import { withFreshServer } from "../kit/processes.js";
import { int, ms, percentile as quantile, table } from "../kit/table.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const BURST = fromEnv.number("BENCH_FAIRNESS_BURST", 2_000, WHOLE); // hostile asks at once, every PERIOD_MS
const PERIOD_MS = fromEnv.number("BENCH_FAIRNESS_PERIOD_MS", 1_000, WHOLE);
const RUN_S = fromEnv.number("BENCH_FAIRNESS_RUN_S", 6, POSITIVE); // seconds per run
const ROUNDS = fromEnv.number("BENCH_FAIRNESS_ROUNDS", 2, WHOLE);
const HOSTILE_EVENTS = fromEnv.number("BENCH_FAIRNESS_EVENTS", 100_000, WHOLE); // the hostile organisation's
const BASELINE_DIST = fromEnv.text("BENCH_BASELINE_DIST");
/** RECOMMEND_TIMEOUT_MS's and RECOMMEND_ORG_QUEUE_MAX's defaults. */
const TIMEOUT_MS = 2_000;
const DEFAULT_QUEUE_MAX = 256;
const HOSTILE = 1_000_002;
const BYSTANDER = 1_000_004;
const USERS = 5_000;
const ITEMS = 3_000;

type PoolModule = typeof ThisBuild;

interface Variant {
  name: string;
  pool: PoolModule;
  orgQueueMax: number;
}

type Run = Awaited<ReturnType<typeof measure>>;

/** The hostile organisation's k-th ask: the strategies that read the most of its index, in turn. */
function hostileAsk(k: number): RankRequest {
  const user = `u${(k * 7919) % USERS}`;
  const item = `i${(k * 104_729) % ITEMS}`;
  const body =
    k % 3 === 0
      ? { strategy: "personalized", user_id: user, limit: 100 }
      : k % 3 === 1
        ? { strategy: "also-viewed", context_item_id: item, limit: 100 }
        : { strategy: "similar", context_item_id: item, limit: 100 };
  return toRankRequest(HOSTILE, validateRecommend(body));
}

/** Built once: validating them per burst would cost this thread what the bystander's answers wait for. */
const hostileAsks = Array.from({ length: 3 * 1_000 }, (_, k) => hostileAsk(k));
const bystanderAsk = toRankRequest(BYSTANDER, validateRecommend({ strategy: "popular" }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the variant's pool, waits for its first models, runs the scenario for RUN_S seconds. */
async function measure(v: Variant, databaseUrl: string) {
  let trained = 0;
  const observer = { restarted: () => {}, skipped: () => {}, expired: () => {}, trained: () => void trained++, sizes: () => {} };
  const pool: ThisBuild.RecommenderPool = await v.pool.RecommenderPool.start({
    databaseUrl,
    shards: 1,
    timeoutMs: TIMEOUT_MS,
    orgQueueMax: v.orgQueueMax,
    als: DEFAULT_ALS,
    retrainIntervalMs: 3_600_000,
    observer,
  });
  try {
    // The first models are trained after start: measured without that training beside it.
    for (const until = performance.now() + 60_000; trained < 2 && performance.now() < until;) await sleep(100);
    // servedBefore, per bystander ask: the hostile organisation's asks answered between it and its answer (order of service, not time).
    const run = {
      bystanderMs: [] as number[],
      servedBefore: [] as number[],
      bystander503: 0,
      hostileAnswered: 0,
      hostileRefused: 0,
      hostileTimedOut: 0,
    };
    const ends = performance.now() + RUN_S * 1000;
    let k = 0;
    const bursts = setInterval(() => {
      for (let i = 0; i < BURST; i++) {
        pool.rank(hostileAsks[k++ % hostileAsks.length]!, (err) => {
          if (!err) run.hostileAnswered++;
          else if (/too many/.test(err.message)) run.hostileRefused++;
          else run.hostileTimedOut++;
        });
      }
    }, PERIOD_MS);
    while (performance.now() < ends) {
      const asked = performance.now();
      const answeredBefore = run.hostileAnswered;
      const ok = await new Promise<boolean>((resolve) =>
        pool.rank(bystanderAsk, (err) => {
          run.servedBefore.push(run.hostileAnswered - answeredBefore);
          resolve(err === undefined);
        }),
      );
      if (ok) run.bystanderMs.push(performance.now() - asked);
      else run.bystander503++;
      await sleep(10);
    }
    clearInterval(bursts);
    await sleep(TIMEOUT_MS + 200); // the last burst's asks are answered or time out
    return run;
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const variants: Variant[] = [];
  if (BASELINE_DIST) {
    const url = pathToFileURL(join(BASELINE_DIST, "src/recommend/recommenderPool.js")).href;
    variants.push({ name: "baseline build", pool: (await import(url)) as PoolModule, orgQueueMax: DEFAULT_QUEUE_MAX });
  } else {
    log("BENCH_BASELINE_DIST is not set: this build only (see the header of bench/benchmarks/fairness.ts for a baseline)");
  }
  variants.push({ name: `this build, queue cap ${DEFAULT_QUEUE_MAX}`, pool: ThisBuild, orgQueueMax: DEFAULT_QUEUE_MAX });
  variants.push({ name: "this build, no queue cap", pool: ThisBuild, orgQueueMax: 1_000_000 });

  await withFreshServer({}, async ({ storage }) => {
    const databaseUrl = connectionUrl(storage);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    log(`writing ${int(HOSTILE_EVENTS)} events of the hostile organisation and 5,000 of the bystander`);
    await insertViews(db, HOSTILE, HOSTILE_EVENTS, USERS, ITEMS);
    await insertViews(db, BYSTANDER, 5_000, 500, 300);
    await db.query("VACUUM ANALYZE events");
    await db.end();

    const runs = new Map<Variant, Run[]>(variants.map((v) => [v, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const v of variants) {
        log(`round ${round}/${ROUNDS}: ${v.name}`);
        runs.get(v)!.push(await measure(v, databaseUrl));
      }
    }
    const rows = variants.map((v) => {
      const rs = runs.get(v)!;
      const waits = rs.flatMap((r) => r.bystanderMs).sort((a, b) => a - b);
      const sum = (f: (r: Run) => number) => rs.reduce((n, r) => n + f(r), 0);
      const asked = waits.length + sum((r) => r.bystander503);
      const served = rs.flatMap((r) => r.servedBefore).sort((a, b) => a - b);
      return [
        v.name,
        int(quantile(served, 0.5)),
        int(quantile(served, 0.99)),
        int(served[served.length - 1] ?? NaN),
        ms(quantile(waits, 0.5)),
        ms(quantile(waits, 0.99)),
        ms(waits[waits.length - 1] ?? NaN),
        `${int(sum((r) => r.bystander503))} / ${int(asked)}`,
        int(sum((r) => r.hostileAnswered) / (ROUNDS * RUN_S)),
        int(sum((r) => r.hostileRefused)),
        int(sum((r) => r.hostileTimedOut)),
      ];
    });
    process.stdout.write(
      `\nOne recommender thread; the hostile organisation sends ${int(BURST)} asks at once every ${int(PERIOD_MS)} ms, the bystander one popular ask at a time (${ROUNDS} runs of ${RUN_S} s each, alternated)\n\n${table(
        " | hostile asks served meanwhile: p50 | p99 | max | bystander wait p50 ms | p99 ms | max ms | bystander 503 | hostile answered/s | hostile refused (cap) | hostile timed out",
        rows,
      )}\n`,
    );
  });
}

runBenchmark(main);
