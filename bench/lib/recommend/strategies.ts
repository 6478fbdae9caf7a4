/** Each strategy driven by autocannon against the real server, after a look at what it answers and a warm-up. */
import type { SyntheticSpec } from "../synthetic.js";
import { log } from "../settings.js";
import { bodyMaker, type Strategy } from "./bodies.js";
import { drive, type DriveResult } from "./drive.js";
import { sample, type Sample } from "./sample.js";
import { threadCores, type ThreadCores } from "./threads.js";

const SAMPLE_REQUESTS = 50;

export interface StrategyRun {
  strategy: Strategy;
  sample: Sample;
  load: DriveResult;
  threads: ThreadCores;
}

export interface FixedRateRun {
  strategy: Strategy;
  connections: number;
  rate: number;
  load: DriveResult;
  threads: ThreadCores;
}

export interface Server {
  url: string;
  pk: string;
  spec: SyntheticSpec;
  pid: number | undefined;
  /** The embedded PostgreSQL's, when there is one (its CPU counts as the server's side). */
  dataDir: string | undefined;
}

const target = (s: Server) => ({
  url: `${s.url}/v1/recommend`,
  headers: { "content-type": "application/json", "x-api-key": s.pk },
  ours: { pid: s.pid, dataDir: s.dataDir },
});

export async function runStrategy(s: Server, strategy: Strategy, connections: number, durationS: number, warmupS: number): Promise<StrategyRun> {
  const body = bodyMaker(strategy, s.spec);
  const seen = await sample(s.url, s.pk, body, SAMPLE_REQUESTS);
  log(`  ${strategy}: modes ${JSON.stringify(seen.modes)}, ${seen.meanResults.toFixed(1)} results and ${Math.round(seen.meanBytes)} bytes per answer; -c ${connections}, ${durationS}s`);
  await drive({ ...target(s), body, connections, durationS: warmupS });
  const threads = threadCores(s.pid);
  const load = await drive({ ...target(s), body, connections, durationS });
  return { strategy, sample: seen, load, threads: threads() };
}

/** The strategy at a fixed overall rate (autocannon overallRate: each connection's share, sent at the start of each second). */
export async function runFixedRate(s: Server, strategy: Strategy, rate: number, connections: number, durationS: number): Promise<FixedRateRun> {
  log(`  ${strategy}: ${rate} req/s, -c ${connections}, ${durationS}s`);
  const threads = threadCores(s.pid);
  const load = await drive({ ...target(s), body: bodyMaker(strategy, s.spec), connections, durationS, overallRate: rate });
  return { strategy, connections, rate, load, threads: threads() };
}
