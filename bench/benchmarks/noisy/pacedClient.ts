/**
 * A paced client for bench:noisy: request i of a schedule goes out at start + offset + i/rate (not in bursts, as
 * autocannon's overallRate sends), over a keep-alive agent, and is timed from that due time, so a request held
 * up behind a busy thread counts its wait. Answers are counted by status (a 503 is what the issue saw).
 */
import { Latencies } from "../../kit/latencies.js";
import { keepAliveAgent, post } from "../traffic/keepAlive.js";

export interface Schedule {
  url: string;
  key: string;
  body: (k: number) => string;
  /** Requests per second. */
  rate: number;
  /** Seconds past the common start before the first request. */
  offsetS: number;
  durationS: number;
}

export interface PacedStats {
  latencies: Latencies;
  statuses: Map<number, number>;
  errors: number;
}

export function newStats(): PacedStats {
  return { latencies: new Latencies(), statuses: new Map(), errors: 0 };
}

const agent = keepAliveAgent(64);

/** Runs the schedule from `startMs` (performance.now() time), adding to `stats`; resolves when every answer is in. */
export async function runSchedule(s: Schedule, startMs: number, stats: PacedStats): Promise<void> {
  const base = new URL(s.url);
  const headers = { "content-type": "application/json", "x-api-key": s.key };
  const n = Math.floor(s.durationS * s.rate);
  const pending: Promise<void>[] = [];
  for (let k = 0; k < n; k++) {
    const due = startMs + (s.offsetS + k / s.rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      post(agent, base, "/v1/recommend", headers, s.body(k)).then((a) => {
        if (a.failure) return void stats.errors++;
        stats.latencies.add(performance.now() - due);
        stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(pending);
}
