/** The benchmarks' shared settings, read once from the environment; bench:ingest reads them all. */
import { fromEnv, POSITIVE, WHOLE } from "./flags.js";

const env = process.env;

export const DURATION_S = fromEnv.number("BENCH_DURATION_S", 10, POSITIVE); // seconds per measured scenario
export const WARMUP_S = fromEnv.number("BENCH_WARMUP_S", 2, { min: 0 }); // per scenario, also used to size the measured run
export const CONNECTIONS = fromEnv.number("BENCH_CONNECTIONS", 100, POSITIVE); // for 1-event requests and the uWS ceiling
export const SCENARIOS = fromEnv.numbers("BENCH_SCENARIOS", "1,100,1000", WHOLE); // events per request
export const VERBOSE = Boolean(env.BENCH_VERBOSE); // pass the server's output through
export const SKIP_CEILINGS = env.BENCH_CEILINGS === "0"; // skip bench:ingest's ceilings
export const DATABASE_URL = env.BENCH_DATABASE_URL; // a PostgreSQL to create (and drop) a fresh database on, instead of an embedded one
export const KEEP_DATA_DIR = Boolean(env.BENCH_KEEP); // keep the embedded one's temporary DATA_DIR
export const SERVER_NODE_ARGS = (env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean); // say, --cpu-prof --cpu-prof-dir=/tmp/prof

const CONNECTIONS_FOR: Record<number, number> = {
  1: CONNECTIONS,
  100: fromEnv.number("BENCH_CONNECTIONS_100", 32, POSITIVE),
  1000: fromEnv.number("BENCH_CONNECTIONS_1000", 16, POSITIVE),
};

/** Connections for requests of `n` events each. */
export function connectionsFor(n: number): number {
  return CONNECTIONS_FOR[n] ?? 16;
}

/** The server's own settings passed through (INGEST_*, which it inherits), for the report's title line. */
export function ingestSettingsLine(): string {
  const keys = Object.keys(env)
    .filter((k) => k.startsWith("INGEST_"))
    .sort();
  return keys.length ? keys.map((k) => `${k}=${env[k]}`).join(" ") : "defaults";
}

// Progress goes to stderr so that stdout carries the report alone.
export const log = (s: string): void => void process.stderr.write(s + "\n");
