/** HAProxy with the repository's docs/haproxy.cfg, on a loopback port of its own, in front of the given processes. */
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { cpuSeconds, usPer } from "../../kit/proc.js";
import { spawnChild, stopChild } from "../../kit/processes.js";
import { pollUntil } from "../../kit/poll.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { ingestTarget, load, RequestPool } from "../traffic/autocannon.js";
import { log } from "../../kit/settings.js";
import type { ViewEvents } from "../traffic/events.js";

const CONFIG = fileURLToPath(new URL("../../../../docs/haproxy.cfg", import.meta.url));
const READY_TIMEOUT_MS = 15_000;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** `backends`: the two processes' host:port (the file names two; more need a `server` line each, docs/scaling.md). Resolves once HAProxy answers /readyz with 200 (a ready process behind it). */
export async function startHaproxy(backends: [string, string]) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, RECSVC_BIND: `127.0.0.1:${port}` };
  backends.forEach((b, i) => (env[`RECSVC_${i + 1}`] = b));
  const child = spawnChild("haproxy", ["-db", "-f", CONFIG], env);
  const url = `http://127.0.0.1:${port}`;
  const ready = () => {
    if (child.proc.exitCode !== null) throw new Error(`haproxy exited (${child.proc.exitCode}):\n${child.output()}`);
    return fetch(`${url}/readyz`).then(
      (r) => (r.status === 200 ? true : undefined),
      () => undefined,
    );
  };
  await pollUntil(ready, 100, READY_TIMEOUT_MS, () => `haproxy did not answer ready within ${READY_TIMEOUT_MS / 1000}s:\n${child.output()}`).catch(
    (err: Error) => {
      child.proc.kill("SIGKILL");
      throw err;
    },
  );
  return { child, url };
}

export type BaselineRun = Awaited<ReturnType<typeof haproxyBaseline>>[number];

/**
 * HAProxy's own cost per request: the bare uWS endpoint of bench/benchmarks/traffic/uwsCeiling.ts (it reads a 1-event body and
 * answers 202), driven directly and through HAProxy with docs/haproxy.cfg (both server lines on that one
 * endpoint, so the only difference is HAProxy), alternated, each `runs` times.
 */
export async function haproxyBaseline(connections: number, runs: number, durationS: number, warmupS: number, events: ViewEvents) {
  const { child, port } = await startUwsCeiling();
  const endpoint = `127.0.0.1:${port}`;
  const balancer = await startHaproxy([endpoint, endpoint]).catch(async (err: Error) => {
    await stopChild(child);
    throw err;
  });
  try {
    const out = [];
    const body = (n: number) => events.body(n);
    for (let r = 0; r < runs; r++) {
      const order = r % 2 === 0 ? (["direct", "haproxy"] as const) : (["haproxy", "direct"] as const);
      for (const through of order) {
        const target = ingestTarget(through === "direct" ? `http://${endpoint}` : balancer.url, "svc_pk_unused");
        await load({ target, connections, pool: new RequestPool(target, 1, 0, body), durationS: warmupS });
        const before = cpuSeconds(balancer.child.proc.pid).all;
        const l = await load({ target, connections, pool: new RequestPool(target, 1, 0, body), durationS });
        const haproxyS = cpuSeconds(balancer.child.proc.pid).all - before;
        // haproxyUsPerReq: CPU of HAProxy per request, in microseconds (0 when direct).
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
