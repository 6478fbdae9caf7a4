/**
 * Settings of `npm run bench:cluster`, from flags (`--duration 5`, `--quick`, …) or the environment; a flag wins
 * over its variable. Documented at the top of bench/benchmarks/cluster.ts.
 */
import { fromEnv, readFlags } from "../../kit/flags.js";

const flags = readFlags({
  quick: { boolean: true, env: "BENCH_QUICK" },
  duration: { env: "BENCH_DURATION_S" },
  runs: { env: "BENCH_RUNS" },
  scale: { env: "BENCH_SCALE" },
  "freshness-samples": { env: "BENCH_FRESHNESS_SAMPLES" },
  "freshness-load": { env: "BENCH_FRESHNESS_LOAD" },
  "hide-samples": { env: "BENCH_HIDE_SAMPLES" },
  baseline: { env: "BENCH_BASELINE" },
});

export const QUICK_RUN = flags.on("quick");
const full = (full: number, quick: number) => (QUICK_RUN ? quick : full);
export const DURATION_S = flags.number("duration", full(8, 3), { min: 1 });
export const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", full(2, 1), { min: 1 });
export const RUNS = flags.number("runs", full(3, 2), { min: 1 });
export const SCALE = flags.number("scale", full(0.05, 0.01), { min: 0.001 });
export const CONNECTIONS = {
  ingest1: fromEnv.number("BENCH_CONNECTIONS", 100, { min: 1 }),
  ingest1000: fromEnv.number("BENCH_CONNECTIONS_1000", 16, { min: 1 }),
  recommend: fromEnv.number("BENCH_CONNECTIONS_RECOMMEND", 50, { min: 1 }),
};
export const FRESHNESS_SAMPLES = flags.number("freshness-samples", full(400, 60), { min: 0 });
export const HIDE_SAMPLES = flags.number("hide-samples", full(60, 10), { min: 0 });
export const FRESHNESS_LOAD = flags.number("freshness-load", full(2000, 1000), { min: 0 });
export const BASELINE = flags.text("baseline", "1") !== "0";
