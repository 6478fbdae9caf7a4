/**
 * An open-loop pacer: request k is due at start + k / rate whatever became of the earlier ones, and its latency
 * is counted from that due time. A stall in the server therefore shows as the latency of every request due
 * during it (no coordinated omission), and a connection pool that is full queues requests instead of
 * sending fewer. The pacer's own lateness (due time to the moment it handed the request over) is kept apart,
 * as the client's floor.
 */
import { Latencies } from "../../kit/latencies.js";

interface Paced {
  /** Resolves once every request due within the duration was handed over (not answered). */
  done: Promise<void>;
  /** Milliseconds from each request's due time to its hand-over. */
  lateness: Latencies;
}

/** Calls `send(dueAt, k)` `rate` times a second for `durationMs` from `start` (on the performance.now() clock). */
export function pace(rate: number, durationMs: number, send: (dueAt: number, k: number) => void, start = performance.now()): Paced {
  const lateness = new Latencies();
  const interval = 1000 / rate;
  const total = Math.floor((durationMs / 1000) * rate);
  let k = 0;
  const done = new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (let due = start + k * interval; k < total && due <= now; due = start + ++k * interval) {
        lateness.add(now - due);
        send(due, k);
      }
      if (k >= total) return resolve();
      setTimeout(tick, Math.max(0, start + k * interval - performance.now()));
    };
    tick();
  });
  return { done, lateness };
}
