/** HAProxy with the repository's docs/haproxy.cfg, on a loopback port of its own, in front of the given processes. */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { Child } from "../../kit/processes.js";

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
