/** Drives a target with autocannon from a request pool and sums up what came back. */
import autocannon from "autocannon";
import { DURATION_S } from "../../kit/settings.js";
import { requestHead, withBody } from "../../kit/rawHttp.js";
import { randomEvents } from "./events.js";

export type LoadResult = ReturnType<typeof loadResult>;

/**
 * autocannon POSTing `take()`'s prebuilt requests to `url` for `durationS`, or until `amount` are answered; stopped
 * if it runs past three times its length. Each client is handed the prebuilt buffers (its getRequestBuffer):
 * autocannon's own per-request hook rebuilds each request through several object copies.
 */
export function runAutocannon(
  o: { url: string; headers: Record<string, string>; connections: number; timeoutS: number; durationS: number; amount?: number },
  take: () => Buffer,
  watch: (instance: autocannon.Instance) => void = () => undefined,
): Promise<autocannon.Result> {
  const { url, headers, connections, timeoutS, durationS, amount } = o;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        pipelining: 1,
        timeout: timeoutS,
        ...(amount !== undefined ? { amount } : { duration: durationS }),
        method: "POST",
        headers,
        body: "{}",
        setupClient: (client: unknown) => void ((client as { getRequestBuffer: () => Buffer }).getRequestBuffer = take),
      },
      (err, r) => {
        clearTimeout(guard);
        if (err) reject(err);
        else resolve(r);
      },
    );
    watch(instance);
    const guard = setTimeout(() => instance.stop(), durationS * 3000 + 5000);
  });
}

/** Runs for `durationS` (default DURATION_S), or until `amount` requests are answered. */
export async function load(opts: { target: Target; connections: number; pool: RequestPool; amount?: number; durationS?: number }) {
  const { target, connections, amount } = opts;
  const o = { url: target.url.toString(), headers: target.headers, connections, timeoutS: 30, durationS: opts.durationS ?? DURATION_S, amount };
  return loadResult(await runAutocannon(o, () => opts.pool.take()));
}

function loadResult(r: autocannon.Result) {
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
