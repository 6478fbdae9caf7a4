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

export const SCALE = flags.number("scale", 1, POSITIVE);
export const DATA_DIR = flags.text("data-dir");
export const CONNECTIONS = flags.number("connections", 50, POSITIVE);
export const DURATION_S = flags.number("duration", 10, POSITIVE);
export const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", 2, POSITIVE);
export const FIXED_RATE = flags.number("rate", 2000, POSITIVE);
export const ONLY_STRATEGIES = flags.text("strategies")?.split(",").filter(Boolean);
export const LOAD_IN_FLIGHT = fromEnv.number("BENCH_LOAD_IN_FLIGHT", 8, POSITIVE);
export const FIXED_CONNECTIONS = fromEnv.numbers("BENCH_FIXED_CONNECTIONS", `${CONNECTIONS}`, POSITIVE);
export const FIXED_RUNS = fromEnv.number("BENCH_FIXED_RUNS", 5, POSITIVE);
export const FIXED_DURATION_S = fromEnv.number("BENCH_FIXED_DURATION_S", 8, POSITIVE);
export const RETRAIN = fromEnv.text("BENCH_RETRAIN") !== "0";
