/**
 * Settings of `npm run bench:recommend`, from flags (`--scale 0.05`, `--data-dir DIR`, …) or the environment
 * (BENCH_SCALE, BENCH_DATA_DIR, …); a flag wins over its variable. Documented at the top of bench/recommend.ts.
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
 * Connections of the fixed-rate runs. autocannon sends each connection's share of a second in a burst, so
 * the first figure (the same -c as the other runs) measures bursts of that many requests at once, and a
 * small one shows the same rate spread over few connections.
 */
export const FIXED_CONNECTIONS = (env.BENCH_FIXED_CONNECTIONS ?? `${CONNECTIONS},10`).split(",").map(Number);
