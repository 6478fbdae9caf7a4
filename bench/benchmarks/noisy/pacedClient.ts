/**
 * A paced client for bench:noisy: request i of a schedule goes out at start + offset + i/rate (not in bursts, as
 * autocannon's overallRate sends), over a keep-alive agent, and is timed from that due time, so a request held
 * up behind a busy thread counts its wait. Answers are counted by status (a 503 is what the issue saw).
 */
import http from "node:http";
import { Latencies } from "../../kit/latencies.js";

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

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** Runs the schedule from `startMs` (performance.now() time), adding to `stats`; resolves when every answer is in. */
export async function runSchedule(s: Schedule, startMs: number, stats: PacedStats): Promise<void> {
  const n = Math.floor(s.durationS * s.rate);
  const pending: Promise<void>[] = [];
  for (let k = 0; k < n; k++) {
    const due = startMs + (s.offsetS + k / s.rate) * 1000;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(s, s.body(k), due, stats));
  }
  await Promise.all(pending);
}

function send(s: Schedule, body: string, due: number, stats: PacedStats): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(
      `${s.url}/v1/recommend`,
      { method: "POST", agent, headers: { "content-type": "application/json", "x-api-key": s.key, "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => {
          stats.latencies.add(performance.now() - due);
          stats.statuses.set(res.statusCode!, (stats.statuses.get(res.statusCode!) ?? 0) + 1);
          resolve();
        });
      },
    );
    req.on("error", () => {
      stats.errors++;
      resolve();
    });
    req.end(body);
  });
}
