/** The benchmarks' shared settings, read once from the environment (documented at the top of bench/benchmarks/ingest.ts). */
import { fromEnv, POSITIVE, WHOLE } from "./flags.js";

const env = process.env;

export const DURATION_S = fromEnv.number("BENCH_DURATION_S", 10, POSITIVE);
export const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", 2, { min: 0 });
export const CONNECTIONS = fromEnv.number("BENCH_CONNECTIONS", 100, POSITIVE);
export const SCENARIOS = fromEnv.numbers("BENCH_SCENARIOS", "1,100,1000", WHOLE);
export const VERBOSE = Boolean(env.BENCH_VERBOSE);
export const SKIP_CEILINGS = env.BENCH_CEILINGS === "0";
export const DATABASE_URL = env.BENCH_DATABASE_URL;
export const KEEP_DATA_DIR = Boolean(env.BENCH_KEEP);
export const SERVER_NODE_ARGS = (env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);

const CONNECTIONS_FOR: Record<number, number> = {
  1: CONNECTIONS,
  100: fromEnv.number("BENCH_CONNECTIONS_100", 32, POSITIVE),
  1000: fromEnv.number("BENCH_CONNECTIONS_1000", 16, POSITIVE),
};

/** Connections for requests of `n` events each. */
export function connectionsFor(n: number): number {
  return CONNECTIONS_FOR[n] ?? 16;
}

/** The server's own settings passed through, for the report's title line. */
export function ingestSettingsLine(): string {
  const keys = Object.keys(env)
    .filter((k) => k.startsWith("INGEST_"))
    .sort();
  return keys.length ? keys.map((k) => `${k}=${env[k]}`).join(" ") : "defaults";
}

// Progress goes to stderr so that stdout carries the report alone.
export const log = (s: string): void => void process.stderr.write(s + "\n");
