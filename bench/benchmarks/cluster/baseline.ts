/**
 * HAProxy's own cost per request: the bare uWS endpoint of bench/benchmarks/traffic/uwsCeiling.ts (it reads a 1-event body and
 * answers 202), driven directly and through HAProxy with docs/haproxy.cfg (both server lines on that one
 * endpoint, so the only difference is HAProxy), alternated, each `runs` times.
 */
import { cpuSeconds, usPer } from "../../kit/proc.js";
import { load } from "../traffic/autocannon.js";
import { stopChild } from "../../kit/processes.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { ingestTarget, RequestPool } from "../traffic/requests.js";
import { log } from "../../kit/settings.js";
import type { ViewEvents } from "../traffic/events.js";
import { startHaproxy } from "./haproxy.js";

export interface BaselineRun {
  through: "direct" | "haproxy";
  reqPerS: number;
  p50: number;
  p99: number;
  /** CPU of HAProxy per request, in microseconds (0 when direct). */
  haproxyUsPerReq: number;
}

export async function haproxyBaseline(
  connections: number,
  runs: number,
  durationS: number,
  warmupS: number,
  events: ViewEvents,
): Promise<BaselineRun[]> {
  const { child, port } = await startUwsCeiling();
  const endpoint = `127.0.0.1:${port}`;
  const balancer = await startHaproxy([endpoint, endpoint]).catch(async (err: Error) => {
    await stopChild(child);
    throw err;
  });
  try {
    const out: BaselineRun[] = [];
    const body = (n: number) => events.body(n);
    for (let r = 0; r < runs; r++) {
      const order: Array<BaselineRun["through"]> = r % 2 === 0 ? ["direct", "haproxy"] : ["haproxy", "direct"];
      for (const through of order) {
        const target = ingestTarget(through === "direct" ? `http://${endpoint}` : balancer.url, "svc_pk_unused");
        await load({ target, connections, pool: new RequestPool(target, 1, 0, body), durationS: warmupS });
        const before = cpuSeconds(balancer.child.proc.pid).all;
        const l = await load({ target, connections, pool: new RequestPool(target, 1, 0, body), durationS });
        const haproxyS = cpuSeconds(balancer.child.proc.pid).all - before;
        const run = { through, reqPerS: l.reqPerS, p50: l.p50, p99: l.p99, haproxyUsPerReq: through === "direct" ? 0 : usPer(haproxyS, l.requests) };
        log(`  ${through}: ${Math.round(run.reqPerS).toLocaleString("en-US")} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms`);
        out.push(run);
      }
    }
    return out;
  } finally {
    await stopChild(balancer.child);
    await stopChild(child);
  }
}
