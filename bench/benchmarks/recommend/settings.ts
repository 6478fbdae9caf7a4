/**
 * Settings of `npm run bench:recommend`, from flags (`--scale 0.05`, `--data-dir DIR`, …) or the environment
 * (BENCH_SCALE, BENCH_DATA_DIR, …); a flag wins over its variable. Documented at the top of bench/benchmarks/recommend.ts.
 */
import { fromEnv, readFlags } from "../../kit/flags.js";

const flags = readFlags({
  scale: { env: "BENCH_SCALE" },
  "data-dir": { env: "BENCH_DATA_DIR" },
  connections: { env: "BENCH_CONNECTIONS" },
  duration: { env: "BENCH_DURATION_S" },
  rate: { env: "BENCH_FIXED_RATE" },
  strategies: { env: "BENCH_STRATEGIES" },
});
const POSITIVE = { min: Number.MIN_VALUE };

/** 1 is the full organisation (100,000 items, 50,000 users, 5,000,000 events); 0.02 a quick run. */
export const SCALE = flags.number("scale", 1, POSITIVE);
/** Keeps the embedded database here between runs (loaded once, reused while its manifest matches). */
export const DATA_DIR = flags.text("data-dir");
export const CONNECTIONS = flags.number("connections", 50, POSITIVE);
export const DURATION_S = flags.number("duration", 10, POSITIVE);
export const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", 2, POSITIVE);
/** Requests per second of the fixed-rate runs. */
export const FIXED_RATE = flags.number("rate", 2000, POSITIVE);
/** Which strategies to drive (default all ten); the fixed-rate runs follow only those listed. */
export const ONLY_STRATEGIES = flags.text("strategies")?.split(",").filter(Boolean);
/** Event requests in flight while loading (each 1,000 events). */
export const LOAD_IN_FLIGHT = fromEnv.number("BENCH_LOAD_IN_FLIGHT", 8, POSITIVE);
/**
 * Connections of the fixed-rate runs (our paced client, paced.ts: requests spread evenly in time over them).
 * A list measures each count in turn.
 */
export const FIXED_CONNECTIONS = fromEnv.numbers("BENCH_FIXED_CONNECTIONS", `${CONNECTIONS}`, POSITIVE);
/** Fixed-rate runs per strategy after the restart (each reported), and their length. */
export const FIXED_RUNS = fromEnv.number("BENCH_FIXED_RUNS", 5, POSITIVE);
export const FIXED_DURATION_S = fromEnv.number("BENCH_FIXED_DURATION_S", 8, POSITIVE);
/**
 * The retrain phase (BENCH_RETRAIN=0 skips it): one event makes the server retrain the organisation while
 * personalized runs at the fixed rate, measured during the training and in the seconds after the new model is in.
 */
export const RETRAIN = fromEnv.text("BENCH_RETRAIN") !== "0";
