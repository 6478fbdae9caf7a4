/**
 * autocannon against one POST endpoint, counting every answer that is not 2xx, its percentiles from the raw times
 * of the 2xx answers. Requests are built ahead of time from `body()`, so they ask for many different users or items.
 */
import { requestHead, withBody } from "../../kit/rawHttp.js";
import { runAutocannon } from "./autocannon.js";
import { cpuShare, type Ours } from "../../kit/cpuShare.js";
import { Latencies } from "../../kit/latencies.js";
import { ownCpuSeconds } from "../../kit/proc.js";

export interface DriveOptions {
  url: string;
  headers: Record<string, string>;
  body: () => string;
  connections: number;
  durationS: number;
  /** The processes whose CPU counts as the run's own (the rest of the machine is reported as other work). */
  ours: Ours;
}

export type DriveResult = Awaited<ReturnType<typeof drive>>;

const FIRST_SECOND_MS = 1000;

/** Distinct requests per run, used in turn: far more than the connections, so no two in flight ask the same. */
const PREBUILT = 20_000;

/** Whole HTTP/1.1 requests for autocannon's clients, each with a body from `body()`. */
function prebuilt(url: URL, headers: Record<string, string>, body: () => string): () => Buffer {
  const head = requestHead("POST", url, headers);
  const requests = Array.from({ length: PREBUILT }, () => withBody(head, body()));
  let next = 0;
  return () => requests[next++ % PREBUILT]!;
}

export async function drive(o: DriveOptions) {
  const take = prebuilt(new URL(o.url), o.headers, o.body);
  const latencies = new Latencies();
  const afterFirstSecond = new Latencies();
  const start = performance.now();
  const cpuBefore = process.cpuUsage();
  const share = cpuShare(o.ours);
  const r = await runAutocannon({ ...o, timeoutS: 10 }, take, (instance) =>
    // Only 2xx times: a fast error must not make the percentiles look better.
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status < 200 || status >= 300) return;
      latencies.add(ms);
      if (performance.now() - ms - start >= FIRST_SECOND_MS) afterFirstSecond.add(ms);
    }),
  );
  const { serverCores, pgCores, otherCores } = share();
  const [p50, p90, p99, max] = latencies.percentiles([0.5, 0.9, 0.99, 1]);
  const ok = r["2xx"];
  return {
    requests: ok + r.non2xx, // answers received, of any status
    ok,
    non2xx: r.non2xx,
    errors: r.errors, // connection errors, timeouts included
    timeouts: r.timeouts,
    durationS: r.duration,
    reqPerS: ok / r.duration, // 2xx answers per second
    p50: p50!,
    p90: p90!,
    p99: p99!,
    max: max!,
    // The p99 of the answers to requests sent after the run's first second, once its connections are open.
    p99AfterFirstSecond: afterFirstSecond.percentiles([0.99])[0]!,
    // Response bytes per 2xx answer (headers included), as autocannon counts them.
    bytesPerResponse: r.throughput.total / Math.max(1, ok),
    // CPU seconds per second the load generator (this process) used: near 1 means it may be what limits.
    clientCpuShare: ownCpuSeconds(cpuBefore) / r.duration,
    // Cores busy in the server (or ceiling endpoint), its PostgreSQL, and work this benchmark did not start.
    serverCores,
    pgCores,
    otherCores,
  };
}
