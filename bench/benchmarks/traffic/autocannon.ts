/** Drives a target with autocannon from a request pool and sums up what came back. */
import autocannon from "autocannon";
import { DURATION_S } from "../../kit/settings.js";
import { requestHead, withBody } from "../../kit/rawHttp.js";
import { randomEvents } from "./events.js";

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

/** Whole HTTP/1.1 ingestion requests, built ahead of time for the load generator. */
export interface Target {
  url: URL;
  headers: Record<string, string>;
}

/** The ingestion endpoint at `baseUrl`, called with a publishable key. */
export function ingestTarget(baseUrl: string, pk: string): Target {
  return { url: new URL(`${baseUrl}/v1/events/ingest`), headers: { "content-type": "application/json", "x-api-key": pk } };
}

function rawRequest(t: Target, n: number, body: (n: number) => string): Buffer {
  return withBody(requestHead("POST", t.url, t.headers), body(n));
}

const EMPTY = Buffer.alloc(0);

/**
 * Requests made ahead of time (so the load generator spends its CPU on sending), topped up on the fly when
 * short. Each request is used once: every event_id sent is fresh. (autocannon's own per-request hook,
 * setupRequest, rebuilds the request through several object copies and costs the load generator more
 * than half its rate on 1-event bodies; the prebuilt buffers are handed to its clients instead.)
 */
export class RequestPool {
  private readonly reqs: Buffer[];
  private next = 0;
  constructor(
    private readonly target: Target,
    private readonly n: number,
    count: number,
    /** The bodies' maker: random events by default (bench:cluster passes its seeded one). */
    private readonly body: (n: number) => string = (n) => randomEvents.body(n),
  ) {
    this.reqs = new Array<Buffer>(count);
    for (let i = 0; i < count; i++) this.reqs[i] = rawRequest(target, n, body);
  }
  take(): Buffer {
    if (this.next < this.reqs.length) {
      const b = this.reqs[this.next];
      this.reqs[this.next++] = EMPTY; // let it go once sent
      return b;
    }
    return rawRequest(this.target, this.n, this.body);
  }
}
