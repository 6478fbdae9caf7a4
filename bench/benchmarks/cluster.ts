/**
 * `npm run bench:cluster` (issue 27): one process (CLUSTER=0) against two (CLUSTER=1, on a copy of the database)
 * behind HAProxy with docs/haproxy.cfg, all on one PostgreSQL, alternated round after round: ingestion (1,000-event
 * arrays, single events) and recommend (personalized, popular on bench:recommend's organisation, scaled); then
 * freshness across the pair under a paced background load; then HAProxy's own cost on a bare uWS endpoint. The
 * report goes to stdout, the figures to bench/results/cluster-<date>.json; how to read it: docs/scaling.md.
 * BENCH_DATABASE_URL, BENCH_VERBOSE as for bench:ingest.
 */
import os from "node:os";
import pg from "pg";
import { connectionUrl, prepareStorage, serverVersion, type Storage } from "../kit/storage.js";
import { registerOrg } from "../kit/org.js";
import { loadPhase } from "./recommend/loadOrg.js";
import { startPaced } from "./traffic/paced.js";
import { benchSpec, specLine, bodyMaker } from "./recommend/spec.js";
import { writeFigures } from "../kit/results.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { haproxyBaseline, type BaselineRun } from "./cluster/haproxy.js";
import { settle, type Watched, ingestRun, recommendRun } from "./cluster/runs.js";
import { ViewEvents } from "./traffic/events.js";
import { eventFreshness, hideFreshness, POLL_MS, type Freshness } from "./cluster/freshness.js";
import { report, type ScenarioRun, type Setup } from "./cluster/report.js";
import { startTopology, stopTopology, type Topology } from "./cluster/topology.js";
import { USER_STRATEGIES, type Strategy } from "../../src/wire/strategies.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import type { SyntheticSpec } from "../kit/synthetic.js";
import { fromEnv, readFlags } from "../kit/flags.js";

const flags = readFlags({
  quick: { boolean: true, env: "BENCH_QUICK", help: "3 s runs, 2 rounds, a small organisation: to check it works" },
  duration: { env: "BENCH_DURATION_S", help: "seconds per measured run (default 8)" },
  runs: { env: "BENCH_RUNS", help: "rounds (default 3)" },
  scale: { env: "BENCH_SCALE", help: "the recommend organisation, 1 = 100,000 items, 50,000 users, 5M events (default 0.05)" },
  "freshness-samples": { env: "BENCH_FRESHNESS_SAMPLES", help: "event samples (default 400; 0 skips freshness)" },
  "freshness-load": { env: "BENCH_FRESHNESS_LOAD", help: "background events/s during freshness, arrays of 10 (default 2,000)" },
  "hide-samples": { env: "BENCH_HIDE_SAMPLES", help: "item-hide samples (default 60)" },
  baseline: { env: "BENCH_BASELINE", help: "0 skips the HAProxy baseline" },
});

const QUICK_RUN = flags.on("quick");
const full = (full: number, quick: number) => (QUICK_RUN ? quick : full);
const DURATION_S = flags.number("duration", full(8, 3), { min: 1 });
const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", full(2, 1), { min: 1 }); // seconds of warm-up per run
const RUNS = flags.number("runs", full(3, 2), { min: 1 });
const SCALE = flags.number("scale", full(0.05, 0.01), { min: 0.001 });
const CONNECTIONS = {
  ingest1: fromEnv.number("BENCH_CONNECTIONS", 100, { min: 1 }),
  ingest1000: fromEnv.number("BENCH_CONNECTIONS_1000", 16, { min: 1 }),
  recommend: fromEnv.number("BENCH_CONNECTIONS_RECOMMEND", 50, { min: 1 }),
};
const FRESHNESS_SAMPLES = flags.number("freshness-samples", full(400, 60), { min: 0 });
const HIDE_SAMPLES = flags.number("hide-samples", full(60, 10), { min: 0 });
const FRESHNESS_LOAD = flags.number("freshness-load", full(2000, 1000), { min: 0 });
const BASELINE = flags.text("baseline", "1") !== "0";

const SEED = 20261127;
/** The ingest organisation's population: users and items drawn uniformly. */
const INGEST_USERS = 20_000;
const INGEST_ITEMS = 5_000;
const RECOMMEND_STRATEGIES: Strategy[] = ["personalized", "popular"];
/** Longest wait for the processes to be quiet before a run (a training of the ingest organisation may still run). */
const SETTLE_MAX_MS = 60_000;
/** Distinct recommend bodies drive() builds per run (bench/benchmarks/traffic/drive.ts), the same seed each run. */
const PREBUILT_BODIES = 20_000;

/** Recommend bodies for `strategy`, limit 20: users of the organisation drawn by a PRNG seeded the same each run. */
const recommendBodies = (strategy: Strategy, spec: SyntheticSpec) => bodyMaker(strategy, spec, seededRandom(SEED));

function asked(strategy: Strategy, spec: ReturnType<typeof benchSpec>): string {
  if (!USER_STRATEGIES.has(strategy)) return `${strategy} one body (no user)`;
  const body = recommendBodies(strategy, spec);
  return `${strategy} ${new Set(Array.from({ length: PREBUILT_BODIES }, body)).size.toLocaleString("en-US")} distinct users`;
}

async function main(): Promise<void> {
  const loadAverageAtStart = os.loadavg()[0];
  const startedAt = new Date().toISOString();
  let storage: Storage | undefined;
  let topology: Topology | undefined;
  let db: pg.Pool | undefined;
  try {
    storage = await prepareStorage();
    const spec = benchSpec(SCALE);
    log(`loading the recommend organisation: ${specLine(spec)}`);
    const org = await loadPhase(storage, spec, 8);
    topology = await startTopology(storage, org.orgSeq);
    const m = topology.model;
    db = new pg.Pool({ connectionString: connectionUrl(storage), max: 1 });
    const postgresVersion = await serverVersion(db);
    const urls: Record<Setup, string> = { lone: topology.single.url, pair: topology.balancer.url };
    // One per setup: the lone process and the pair are on databases of their own.
    const ingestOrgs = { lone: await registerOrg(urls.lone), pair: await registerOrg(urls.pair) };
    const events = new ViewEvents(seededRandom(SEED), INGEST_USERS, INGEST_ITEMS, true);
    const watched: Watched = {
      lone: topology.single.child.proc.pid!,
      pair: topology.pair.map((p) => p.child.proc.pid!),
      haproxy: topology.balancer.child.proc.pid!,
      dataDir: storage.dataDir,
    };

    const scenarios = [
      ...[1000, 1].map((n) => {
        const connections = n === 1 ? CONNECTIONS.ingest1 : CONNECTIONS.ingest1000;
        return {
          name: n === 1 ? "ingest, single events" : "ingest, 1,000-event arrays",
          connections,
          run: (setup: Setup) => ingestRun(urls[setup], ingestOrgs[setup].pk, n, connections, events, watched, DURATION_S, WARMUP_S),
        };
      }),
      ...RECOMMEND_STRATEGIES.map((s) => ({
        name: `recommend, ${s}`,
        connections: CONNECTIONS.recommend,
        run: (setup: Setup) => recommendRun(urls[setup], org.pk, recommendBodies(s, spec), CONNECTIONS.recommend, watched, DURATION_S, WARMUP_S),
      })),
    ];
    const runs: ScenarioRun[] = [];
    for (let round = 1; round <= RUNS; round++) {
      const order: Setup[] = round % 2 === 1 ? ["lone", "pair"] : ["pair", "lone"];
      for (const s of scenarios) {
        for (const setup of order) {
          log(
            `round ${round}/${RUNS}: ${s.name}, ${setup === "lone" ? "one process" : "two processes through HAProxy"} (-c ${s.connections}, ${DURATION_S}s)`,
          );
          const settledMs = await settle(watched, SETTLE_MAX_MS);
          if (settledMs > 1000) log(`  waited ${(settledMs / 1000).toFixed(1)}s for the processes to be quiet`);
          const figures = await s.run(setup);
          log(
            `  ${Math.round(Number.isNaN(figures.eventsPerS) ? figures.reqPerS : figures.eventsPerS).toLocaleString("en-US")}/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms`,
          );
          runs.push({ scenario: s.name, setup, round, connections: s.connections, settledS: settledMs / 1000, figures });
        }
      }
    }

    const freshness: Array<{ kind: string; figures: Freshness }> = [];
    let freshnessLoad = "";
    if (FRESHNESS_SAMPLES > 0) {
      const pair = { a: topology.pair[0]!.url, b: topology.pair[1]!.url };
      const target = { pk: org.pk, sk: org.sk, items: spec.items };
      await settle(watched, SETTLE_MAX_MS);
      const rate = FRESHNESS_LOAD / 10;
      log(`freshness: background ingest ${FRESHNESS_LOAD} events/s through HAProxy (paced, arrays of 10, 8 connections)`);
      const background =
        rate > 0
          ? await startPaced({
              url: `${topology.balancer.url}/v1/events/ingest`,
              headers: { "content-type": "application/json", "x-api-key": ingestOrgs.pair.pk },
              body: () => events.body(10),
              connections: 8,
              rate,
              durationS: 3600,
              ours: { pid: undefined },
            })
          : undefined;
      try {
        log(`  events accepted by one process, read through the other (${FRESHNESS_SAMPLES} samples)`);
        freshness.push({ kind: "event → recently-viewed", figures: await eventFreshness(pair, target, FRESHNESS_SAMPLES, startedAt, SEED) });
        if (HIDE_SAMPLES > 0) {
          log(`  items made inactive through one process, gone from the other (${HIDE_SAMPLES} samples)`);
          freshness.push({ kind: "item made inactive", figures: await hideFreshness(pair, target, HIDE_SAMPLES, startedAt, SEED) });
        }
      } finally {
        background?.stopAt(performance.timeOrigin + performance.now());
      }
      const bg = background ? (await background.done).result : undefined;
      freshnessLoad = bg
        ? `Background load: ${Math.round(bg.reqPerS * 10).toLocaleString("en-US")} events/s accepted of ${FRESHNESS_LOAD.toLocaleString("en-US")} asked (${bg.non2xx} refused, ${bg.errors} lost; its p99 ${bg.p99.toFixed(1)} ms). Asked every ${POLL_MS} ms.`
        : `No background load. Asked every ${POLL_MS} ms.`;
    }
    await stopTopology(topology);
    topology = undefined;

    let baseline: BaselineRun[] = [];
    if (BASELINE) {
      log(`HAProxy baseline: bare uWS endpoint directly and through HAProxy (-c ${CONNECTIONS.ingest1}, ${DURATION_S}s, ${RUNS} rounds)`);
      baseline = await haproxyBaseline(CONNECTIONS.ingest1, RUNS, DURATION_S, WARMUP_S, events);
    }

    const sent = events.distinct();
    const header = [
      `Cluster benchmark — ${DURATION_S}s runs after ${WARMUP_S}s warm-up, ${RUNS} rounds${QUICK_RUN ? " (--quick)" : ""}, loopback, PostgreSQL ${postgresVersion} (${storage.dataDir ? "embedded" : "external"})`,
      `recommend organisation: ${specLine(spec)} (seeded, planted topics), its model trained on ${m.users.toLocaleString("en-US")} users × ${m.items.toLocaleString("en-US")} items, ${m.pairs.toLocaleString("en-US")} distinct pairs; asked: ${RECOMMEND_STRATEGIES.map((s) => asked(s, spec)).join(", ")} (${PREBUILT_BODIES.toLocaleString("en-US")} bodies per run, one seed)`,
      `ingest organisation: ${sent.events.toLocaleString("en-US")} view events sent (seeded PRNG), ${sent.users.toLocaleString("en-US")} distinct users, ${sent.items.toLocaleString("en-US")} items, ${sent.pairs.toLocaleString("en-US")} pairs`,
    ];
    const result = { date: startedAt, header, runs, freshness, freshnessLoad, baseline };
    process.stdout.write(report(result, loadAverageAtStart));
    writeFigures("cluster", startedAt, result);
  } finally {
    await db?.end().catch(() => undefined);
    await stopTopology(topology);
    await storage?.release();
  }
}

runBenchmark(main);
