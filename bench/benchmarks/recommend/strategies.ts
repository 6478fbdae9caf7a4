/** Each strategy driven by autocannon against the real server, after a look at what it answers and a warm-up. */
import type { SyntheticSpec } from "../../kit/synthetic.js";
import { log } from "../../kit/settings.js";
import { bodyMaker } from "./spec.js";
import type { Strategy } from "../../../src/wire/strategies.js";
import { drive } from "../traffic/drive.js";
import { paced } from "../traffic/paced.js";
import { sample } from "./sample.js";
import { threadCpu } from "../../kit/proc.js";

const SAMPLE_REQUESTS = 50;

export type StrategyRun = Awaited<ReturnType<typeof runStrategy>>;
export type FixedRateRun = Awaited<ReturnType<typeof runFixedRate>>;

export interface Server {
  url: string;
  pk: string;
  spec: SyntheticSpec;
  pid: number | undefined;
  /** The embedded PostgreSQL's, when there is one (its CPU counts as the server's side). */
  dataDir: string | undefined;
}

export const target = (s: Server) => ({
  url: `${s.url}/v1/recommend`,
  headers: { "content-type": "application/json", "x-api-key": s.pk },
  ours: { pid: s.pid, dataDir: s.dataDir },
});

export async function runStrategy(s: Server, strategy: Strategy, connections: number, durationS: number, warmupS: number) {
  const body = bodyMaker(strategy, s.spec);
  const seen = await sample(s.url, s.pk, body, SAMPLE_REQUESTS);
  log(
    `  ${strategy}: modes ${JSON.stringify(seen.modes)}, ${seen.meanResults.toFixed(1)} results and ${Math.round(seen.meanBytes)} bytes per answer; -c ${connections}, ${durationS}s`,
  );
  await drive({ ...target(s), body, connections, durationS: warmupS });
  const threads = threadCores(s.pid);
  const load = await drive({ ...target(s), body, connections, durationS });
  return { strategy, sample: seen, load, threads: threads() };
}

/**
 * The strategy at a fixed overall rate from our paced client (paced.ts: evenly spread, latency from each request's
 * slot). `label`: when it ran ("after restart 1", "during retrain", "after swap", …).
 */
export async function runFixedRate(s: Server, strategy: Strategy, rate: number, connections: number, durationS: number, label: string) {
  const threads = threadCores(s.pid);
  const load = await paced({ ...target(s), body: bodyMaker(strategy, s.spec), connections, rate, durationS });
  log(
    `  ${label}: ${strategy} ${rate} req/s over ${connections} connections, ${durationS}s: p50 ${load.p50.toFixed(2)}, p99 ${load.p99.toFixed(2)}, max ${load.max.toFixed(2)} ms`,
  );
  return { strategy, label, connections, rate, load, threads: threads() };
}

/**
 * Which of the server's threads were busy during a run: the front (main) thread answers HTTP, a recommender
 * shard thread ranks, so the two numbers say which one a strategy's rate is limited by.
 */
export interface ThreadCores {
  /** Cores used by the main thread (HTTP, validation, JSON of the answer). */
  front: number;
  /** The busiest other thread (for one organisation: its recommender shard), as `name#tid`, and its cores. */
  busiest: string;
  busiestCores: number;
}

/** Starts counting; call the returned function at the end of the run. */
export function threadCores(pid: number | undefined): () => ThreadCores {
  const before = threadCpu(pid);
  const at = performance.now();
  return () => {
    const s = (performance.now() - at) / 1000;
    let front = NaN;
    let busiest = "";
    let busiestCores = 0;
    for (const [thread, after] of threadCpu(pid)) {
      const cores = (after - (before.get(thread) ?? 0)) / s;
      if (thread.endsWith(`#${pid}`)) front = cores;
      else if (cores > busiestCores) [busiest, busiestCores] = [thread, cores];
    }
    return { front, busiest, busiestCores };
  };
}
