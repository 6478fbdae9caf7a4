/**
 * `npm run bench:restart`: how long a recommender shard whose thread died keeps its organisations waiting. One
 * large organisation and many small ones written by SQL, loaded by a RecommenderPool in this process; one thread
 * ended as a crash would; each organisation asked every 5 ms until it answers again. BENCH_DATABASE_URL as for
 * bench:ingest.
 */
import type { Worker } from "node:worker_threads";
import pg from "pg";
import { RecommenderPool } from "../../src/recommend/recommenderPool.js";
import { toRankRequest } from "../../src/recommend/schema.js";
import type { RankRequest } from "../../src/wire/rank.js";
import { validateRecommend } from "../../src/recommend/validate.js";
import { DEFAULT_ALS } from "../../src/wire/als.js";
import { fromEnv, WHOLE } from "../kit/flags.js";
import { connectionUrl, insertViews } from "../kit/storage.js";
import { withFreshServer } from "../kit/processes.js";
import { int, percentile, table } from "../kit/table.js";
import { log } from "../kit/settings.js";
import { pollUntil } from "../kit/poll.js";
import { runBenchmark } from "../kit/run.js";

const LARGE_EVENTS = fromEnv.number("BENCH_RESTART_EVENTS", 2_000_000, WHOLE); // the large organisation's
const SMALL_ORGS = fromEnv.number("BENCH_RESTART_SMALL", 200, { min: 0, integer: true }); // of SMALL_EVENTS each
const SMALL_EVENTS = 500;
/** Organisation seqs of the benchmark: all even, so that with two shards they are all on shard 0. */
const LARGE = 1_000_000;
const smallSeq = (k: number) => LARGE + 2 * (k + 1);

/** Milliseconds from `since` until `req` is answered, asking every 5 ms. */
function answeredAfter(r: RecommenderPool, req: RankRequest, since: number): Promise<number> {
  return pollUntil(() => new Promise<number | undefined>((resolve) => r.rank(req, (err) => resolve(err ? undefined : performance.now() - since))), 5);
}

const ask = (org: number) => toRankRequest(org, validateRecommend({ strategy: "popular" }));

async function main(): Promise<void> {
  await withFreshServer({}, async ({ storage }) => {
    const databaseUrl = connectionUrl(storage);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    log(`writing ${int(LARGE_EVENTS)} events of one organisation and ${int(SMALL_EVENTS)} of each of ${SMALL_ORGS} others`);
    await insertViews(db, LARGE, LARGE_EVENTS, 50_000, 100_000);
    for (let k = 0; k < SMALL_ORGS; k++) await insertViews(db, smallSeq(k), SMALL_EVENTS, 50, 200);
    await db.query("VACUUM ANALYZE events");
    await db.end();

    const started = performance.now();
    const recommender = await RecommenderPool.start({
      databaseUrl,
      shards: 2,
      timeoutMs: 10_000,
      orgQueueMax: 256,
      als: DEFAULT_ALS,
      retrainIntervalMs: 3_600_000,
    });
    const firstLoadMs = performance.now() - started;
    log(`first load: ${int(firstLoadMs)} ms`);

    const thread = (recommender as unknown as { threads: Array<{ worker: Worker }> }).threads[0]!;
    const killedAt = performance.now();
    await thread.worker.terminate();
    const [small, large] = await Promise.all([
      Promise.all(Array.from({ length: SMALL_ORGS }, (_, k) => answeredAfter(recommender, ask(smallSeq(k)), killedAt))),
      answeredAfter(recommender, ask(LARGE), killedAt),
    ]).finally(() => recommender.close());
    const at = (q: number) => int(percentile(small, q));
    process.stdout.write(
      `\nA shard of ${SMALL_ORGS + 1} organisations (${int(LARGE_EVENTS + SMALL_ORGS * SMALL_EVENTS)} events) rebuilt after its thread died\n\n${table(
        ["", "ms"],
        [
          ["whole load at start (every organisation waits)", int(firstLoadMs)],
          ["small organisations answer again: median", at(0.5)],
          ["small organisations answer again: slowest", at(1)],
          ["large organisation answers again (the worst case)", int(large)],
        ],
      )}\n`,
    );
  });
}

runBenchmark(main);
