/** Ceiling (b): a bare uWS endpoint that JSON.parses 1-event bodies and answers 202. */
import { cpuSeconds, usPer } from "../../kit/proc.js";
import { load, type LoadResult, ingestTarget, RequestPool } from "../traffic/autocannon.js";
import { cpuShare } from "../../kit/cpuShare.js";
import { stopChild } from "../../kit/processes.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { CONNECTIONS, DURATION_S, WARMUP_S } from "../../kit/settings.js";

/** Prebuilt requests: enough for ~60,000 req/s over the run; beyond, built on the fly. */
const POOL_REQS = Math.round(60_000 * DURATION_S);

export type UwsCeiling = Pick<LoadResult, "reqPerS" | "p50" | "p99"> & { frontCpuUsPerReq: number; otherCores: number };

export async function bareUwsCeiling(): Promise<UwsCeiling> {
  const { child, port } = await startUwsCeiling();
  try {
    const target = ingestTarget(`http://127.0.0.1:${port}`, "svc_pk_unused");
    await load({ target, connections: CONNECTIONS, pool: new RequestPool(target, 1, 0), durationS: WARMUP_S });
    const pool = new RequestPool(target, 1, POOL_REQS);
    const before = cpuSeconds(child.proc.pid);
    const share = cpuShare({ pid: child.proc.pid });
    const r = await load({ target, connections: CONNECTIONS, pool });
    const { otherCores } = share();
    const after = cpuSeconds(child.proc.pid);
    return { ...r, frontCpuUsPerReq: usPer(after.main - before.main, r.requests), otherCores };
  } finally {
    await stopChild(child);
  }
}
