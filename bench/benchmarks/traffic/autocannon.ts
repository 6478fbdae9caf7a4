/** Drives a target with autocannon from a request pool and sums up what came back. */
import autocannon from "autocannon";
import type { RequestPool, Target } from "./requests.js";
import { DURATION_S } from "../../kit/settings.js";

export interface LoadResult {
  requests: number;
  accepted: number;
  other: number;
  errors: number;
  durationS: number;
  reqPerS: number;
  p50: number;
  p99: number;
}

/** Client internals used to hand each connection its next prebuilt request. */
interface AutocannonClient {
  getRequestBuffer(): Buffer;
}

/** autocannon's setupClient that makes every client send `take()`'s requests instead of building its own. */
export function sendingPrebuilt(take: () => Buffer): (client: unknown) => void {
  return (client) => {
    (client as AutocannonClient).getRequestBuffer = take;
  };
}

/** Runs for `durationS` (default DURATION_S), or until `amount` requests are answered. */
export function load(opts: { target: Target; connections: number; pool: RequestPool; amount?: number; durationS?: number }): Promise<LoadResult> {
  const durationS = opts.durationS ?? DURATION_S;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.target.url.toString(),
        connections: opts.connections,
        pipelining: 1,
        timeout: 30,
        ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: durationS }),
        method: "POST",
        headers: opts.target.headers,
        body: "{}",
        setupClient: sendingPrebuilt(() => opts.pool.take()),
      },
      (err, r) => {
        clearTimeout(guard);
        if (err) reject(err);
        else resolve(loadResult(r));
      },
    );
    // A measured run is sized for DURATION_S; never let it run away.
    const guard = setTimeout(() => instance.stop(), durationS * 3000 + 5000);
  });
}

function loadResult(r: autocannon.Result): LoadResult {
  const stats = (r.statusCodeStats ?? {}) as Record<string, { count?: number }>;
  const accepted = stats["202"]?.count ?? 0;
  const answered = Object.values(stats).reduce((a, s) => a + (s.count ?? 0), 0);
  return {
    requests: answered,
    accepted,
    other: answered - accepted,
    errors: r.errors,
    durationS: r.duration,
    reqPerS: accepted / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}
