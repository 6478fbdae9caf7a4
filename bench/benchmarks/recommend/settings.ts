/**
 * Settings of `npm run bench:recommend`, from flags (`--scale 0.05`, `--data-dir DIR`, …) or the environment
 * (BENCH_SCALE, BENCH_DATA_DIR, …); a flag wins over its variable. Documented at the top of bench/benchmarks/recommend.ts.
 */
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    scale: { type: "string" },
    "data-dir": { type: "string" },
    connections: { type: "string" },
    duration: { type: "string" },
    rate: { type: "string" },
    strategies: { type: "string" },
  },
  strict: true,
});

const env = process.env;
const num = (flag: string | undefined, variable: string | undefined, fallback: number): number => {
  const raw = flag ?? variable;
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`not a positive number: ${raw}`);
  return n;
};

/** 1 is the full organisation (100,000 items, 50,000 users, 5,000,000 events); 0.02 a quick run. */
export const SCALE = num(flags.scale, env.BENCH_SCALE, 1);
/** Keeps the embedded database here between runs (loaded once, reused while its manifest matches). */
export const DATA_DIR = flags["data-dir"] ?? env.BENCH_DATA_DIR;
export const CONNECTIONS = num(flags.connections, env.BENCH_CONNECTIONS, 50);
export const DURATION_S = num(flags.duration, env.BENCH_DURATION_S, 10);
export const WARMUP_S = num(undefined, env.BENCH_WARMUP_S, 2);
/** Requests per second of the fixed-rate runs. */
export const FIXED_RATE = num(flags.rate, env.BENCH_FIXED_RATE, 2000);
/** Which strategies to drive (default all ten); the fixed-rate runs follow only those listed. */
export const ONLY_STRATEGIES = (flags.strategies ?? env.BENCH_STRATEGIES)?.split(",").filter(Boolean);
/** Event requests in flight while loading (each 1,000 events). */
export const LOAD_IN_FLIGHT = num(undefined, env.BENCH_LOAD_IN_FLIGHT, 8);
/**
 * Connections of the fixed-rate runs (our paced client, paced.ts: requests spread evenly in time over them).
 * A list measures each count in turn.
 */
export const FIXED_CONNECTIONS = (env.BENCH_FIXED_CONNECTIONS ?? `${CONNECTIONS}`).split(",").map(Number);
/** Fixed-rate runs per strategy after the restart (each reported), and their length. */
export const FIXED_RUNS = num(undefined, env.BENCH_FIXED_RUNS, 5);
export const FIXED_DURATION_S = num(undefined, env.BENCH_FIXED_DURATION_S, 8);
/**
 * The retrain phase (BENCH_RETRAIN=0 skips it): one event makes the server retrain the organisation while
 * personalized runs at the fixed rate, measured during the training and in the seconds after the new model is in.
 */
export const RETRAIN = env.BENCH_RETRAIN !== "0";
