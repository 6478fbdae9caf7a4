/**
 * Settings of `npm run bench:cluster`, from flags (`--duration 5`, `--quick`, …) or the environment; a flag wins
 * over its variable. Documented at the top of bench/benchmarks/cluster.ts.
 */
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean" },
    duration: { type: "string" },
    runs: { type: "string" },
    scale: { type: "string" },
    "freshness-samples": { type: "string" },
    "freshness-load": { type: "string" },
    "hide-samples": { type: "string" },
    baseline: { type: "string" },
  },
  strict: true,
});

const env = process.env;
const QUICK = Boolean(flags.quick) || env.BENCH_QUICK === "1";
const num = (flag: string | undefined, variable: string | undefined, full: number, quick: number, min = 1): number => {
  const raw = flag ?? variable;
  const n = raw === undefined ? (QUICK ? quick : full) : Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`not a number ≥ ${min}: ${raw}`);
  return n;
};

export const QUICK_RUN = QUICK;
/** Seconds per measured run, and of the warm-up before each. */
export const DURATION_S = num(flags.duration, env.BENCH_DURATION_S, 8, 3);
export const WARMUP_S = num(undefined, env.BENCH_WARMUP_S, 2, 1);
/** Rounds: each scenario runs this many times on each setup, the two setups alternated (their order swapped each round). */
export const RUNS = num(flags.runs, env.BENCH_RUNS, 3, 2);
/** The organisation the recommend runs ask about: bench:recommend's synthetic one times this (1 = 100,000 items, 5M events). */
export const SCALE = num(flags.scale, env.BENCH_SCALE, 0.05, 0.01, 0.001);
/** Connections of each kind of run (closed loop: each connection sends its next request once answered). */
export const CONNECTIONS = {
  ingest1: num(undefined, env.BENCH_CONNECTIONS, 100, 100),
  ingest1000: num(undefined, env.BENCH_CONNECTIONS_1000, 16, 16),
  recommend: num(undefined, env.BENCH_CONNECTIONS_RECOMMEND, 50, 50),
};
/** Freshness: samples of an event accepted by one process and read through the other, and of an item hide. */
export const FRESHNESS_SAMPLES = num(flags["freshness-samples"], env.BENCH_FRESHNESS_SAMPLES, 400, 60, 0);
export const HIDE_SAMPLES = num(flags["hide-samples"], env.BENCH_HIDE_SAMPLES, 60, 10, 0);
/** Events per second of the background ingest load during the freshness samples (arrays of 10, paced). */
export const FRESHNESS_LOAD = num(flags["freshness-load"], env.BENCH_FRESHNESS_LOAD, 2000, 1000, 0);
/** The HAProxy baseline (a bare uWS endpoint with and without HAProxy in front): 0 skips it. */
export const BASELINE = (flags.baseline ?? env.BENCH_BASELINE ?? "1") !== "0";
