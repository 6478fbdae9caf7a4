/** HAProxy with the repository's docs/haproxy.cfg, on a loopback port of its own, in front of the given processes. */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { cpuSeconds, usPer } from "../../kit/proc.js";
import { stopChild, type Child } from "../../kit/processes.js";
import { startUwsCeiling } from "../traffic/uwsCeilingProcess.js";
import { ingestTarget, load, RequestPool } from "../traffic/autocannon.js";
import { log } from "../../kit/settings.js";
import type { ViewEvents } from "../traffic/events.js";

const CONFIG = fileURLToPath(new URL("../../../../docs/haproxy.cfg", import.meta.url));
const READY_TIMEOUT_MS = 15_000;

export interface Balancer {
  child: Child;
  url: string;
}

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
export async function startHaproxy(backends: [string, string]): Promise<Balancer> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, RECSVC_BIND: `127.0.0.1:${port}` };
  backends.forEach((b, i) => (env[`RECSVC_${i + 1}`] = b));
  const proc = spawn("haproxy", ["-db", "-f", CONFIG], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const child: Child = { proc, output: () => out, exited };
  const url = `http://127.0.0.1:${port}`;
  const until = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}):\n${out}`);
    const status = await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { child, url };
    if (performance.now() > until) {
      proc.kill("SIGKILL");
      throw new Error(`haproxy did not answer ready within ${READY_TIMEOUT_MS / 1000}s:\n${out}`);
    }
    await sleep(100);
  }
}

/**
 * HAProxy's own cost per request: the bare uWS endpoint of bench/benchmarks/traffic/uwsCeiling.ts (it reads a 1-event body and
 * answers 202), driven directly and through HAProxy with docs/haproxy.cfg (both server lines on that one
 * endpoint, so the only difference is HAProxy), alternated, each `runs` times.
 */
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
