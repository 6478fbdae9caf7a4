/**
 * autocannon against one POST endpoint, each request's body made by `body()` through autocannon's
 * setupRequest (so every request asks for a different user or item), counting every answer that is not 2xx.
 */
import autocannon from "autocannon";
import { cpuShare, type Ours } from "./cpuShare.js";
import { Latencies } from "./latencies.js";

export interface DriveOptions {
  url: string;
  headers: Record<string, string>;
  body: () => string;
  connections: number;
  durationS: number;
  /** Requests per second over all connections; unset: as fast as answers come back. */
  overallRate?: number;
  /** The processes whose CPU counts as the run's own (the rest of the machine is reported as other work). */
  ours: Ours;
}

export interface DriveResult {
  /** Answers received, of any status. */
  requests: number;
  ok: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  durationS: number;
  /** 2xx answers per second. */
  reqPerS: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Response bytes per 2xx answer (headers included), as autocannon counts them. */
  bytesPerResponse: number;
  /** CPU seconds per second the load generator (this process) used: near 1 means it may be what limits. */
  clientCpuShare: number;
  /** Cores busy in the server (or ceiling endpoint), its PostgreSQL, and work this benchmark did not start. */
  serverCores: number;
  pgCores: number;
  otherCores: number;
}

export function drive(o: DriveOptions): Promise<DriveResult> {
  const url = new URL(o.url);
  const latencies = new Latencies();
  const cpuBefore = process.cpuUsage();
  const share = cpuShare(o.ours);
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: url.origin,
        connections: o.connections,
        pipelining: 1,
        timeout: 10,
        duration: o.durationS,
        ...(o.overallRate ? { overallRate: o.overallRate } : {}),
        requests: [
          {
            method: "POST",
            path: url.pathname,
            headers: o.headers,
            setupRequest: (req) => {
              req.body = o.body();
              return req;
            },
          },
        ],
      },
      (err, r) => {
        clearTimeout(guard);
        if (err) return reject(err);
        const cpu = process.cpuUsage(cpuBefore);
        const { serverCores, pgCores, otherCores } = share();
        const [p50, p90, p99, max] = latencies.percentiles([0.5, 0.9, 0.99, 1]);
        const ok = r["2xx"];
        resolve({
          requests: ok + r.non2xx,
          ok,
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          durationS: r.duration,
          reqPerS: ok / r.duration,
          p50: p50!, p90: p90!, p99: p99!, max: max!,
          bytesPerResponse: r.throughput.total / Math.max(1, ok),
          clientCpuShare: (cpu.user + cpu.system) / 1e6 / r.duration,
          serverCores,
          pgCores,
          otherCores,
        });
      },
    );
    // Only 2xx times: a fast error must not make the percentiles look better.
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.add(ms);
    });
    const guard = setTimeout(() => instance.stop(), o.durationS * 3000 + 5000);
  });
}
