/**
 * bench:noisy's schedules: request i goes out at start + offset + i/rate (traffic/pace.ts) over a keep-alive agent,
 * timed from that due time, so a request held up behind a busy thread counts its wait; answers counted by status.
 */
import { Latencies } from "../../kit/latencies.js";
import { keepAliveAgent, send } from "../traffic/keepAlive.js";
import { pace } from "../traffic/pace.js";

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

export type PacedStats = ReturnType<typeof newStats>;

/** Latencies of the answers, their count by status, and the requests that got none. */
export function newStats() {
  return { latencies: new Latencies(), statuses: new Map<number, number>(), errors: 0 };
}

const agent = keepAliveAgent(64);

/** Runs the schedule from `startMs` (performance.now() time), adding to `stats`; resolves when every answer is in. */
export async function runSchedule(s: Schedule, startMs: number, stats: PacedStats): Promise<void> {
  const base = new URL(s.url);
  const headers = { "content-type": "application/json", "x-api-key": s.key };
  const pending: Promise<void>[] = [];
  const ask = (due: number, k: number) =>
    pending.push(
      send(agent, base, "/v1/recommend", headers, s.body(k)).then((a) => {
        if (a.failure) return void stats.errors++;
        stats.latencies.add(performance.now() - due);
        stats.statuses.set(a.status, (stats.statuses.get(a.status) ?? 0) + 1);
      }),
    );
  await pace(s.rate, s.durationS * 1000, ask, startMs + s.offsetS * 1000).done;
  await Promise.all(pending);
}
