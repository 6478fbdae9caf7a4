import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort, type TestServer } from "./server.js";

/** The sample configuration the repository ships: the tests run exactly it. */
const CONFIG = fileURLToPath(new URL("../../docs/haproxy.cfg", import.meta.url));

export interface Balancer {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

const hostPort = (s: TestServer) => new URL(s.url).host;

/** Debian's HAProxy (`apt-get install haproxy`; .ci/run installs it) on a loopback port of its own, in front of two processes. */
export async function startHaproxy(processes: [TestServer, TestServer]): Promise<Balancer> {
  const port = await freePort();
  const env = { ...process.env, RECSVC_BIND: `127.0.0.1:${port}`, RECSVC_1: hostPort(processes[0]), RECSVC_2: hostPort(processes[1]) };
  const child = spawn("haproxy", ["-db", "-f", CONFIG], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await untilReady(url, () => out);
  return {
    url,
    output: () => out,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Until HAProxy listens and has a ready process behind it (its checks run every 500 ms). */
async function untilReady(url: string, output: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const status = await fetch(url + "/readyz").then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`HAProxy did not answer ready within 10 s:\n${output()}`);
}
