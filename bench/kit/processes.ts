/** The child processes a benchmark or the fuzzer runs: the real server, or any other script of the build. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { prepareStorage, type Storage } from "./storage.js";
import { log, SERVER_NODE_ARGS, VERBOSE } from "./settings.js";

const MAIN = fileURLToPath(new URL("../../src/main.js", import.meta.url));
const START_TIMEOUT_MS = 120_000;

export interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts the server on a free loopback port, without rate limits; resolves once it listens. `env`: extra settings.
 * `main`: another build's src/main.js (a baseline measured in the same run), instead of this one's.
 */
export async function startServer(storage: Storage, env: NodeJS.ProcessEnv = {}, timeoutMs = START_TIMEOUT_MS, main = MAIN) {
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    // Registration is rate-limited per client address: honour the random X-Forwarded-For the benchmark sends.
    TRUST_PROXY: "1",
    // The per-key limit must never be what throttles the load.
    RATE_LIMIT_MAX: "1000000000",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    // As `npm start` runs the server (see package.json and the README's settings).
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? "131072",
    ...env,
  };
  delete serverEnv.DATABASE_URL;
  if (storage.databaseUrl) serverEnv.DATABASE_URL = storage.databaseUrl;
  if (storage.dataDir) serverEnv.DATA_DIR = storage.dataDir;
  const { child, match } = await startChild(main, serverEnv, /listening on (http:\/\/\S+)/, SERVER_NODE_ARGS, timeoutMs);
  return { server: child, url: match[1] };
}

export type Running = Awaited<ReturnType<typeof startServer>>;

/** Runs `use` with a server started on `storage` (as startServer does), and stops the server afterwards whatever happens. */
export async function withServer<T>(
  storage: Storage,
  env: NodeJS.ProcessEnv,
  use: (s: Running) => Promise<T>,
  o: { timeoutMs?: number; main?: string } = {},
): Promise<T> {
  const started = await startServer(storage, env, o.timeoutMs, o.main);
  try {
    return await use(started);
  } finally {
    await stopChild(started.server);
    const { exitCode, signalCode } = started.server.proc;
    if (exitCode !== 0) log(`server exit ${exitCode ?? signalCode}:\n${started.server.output().slice(-2000)}`);
  }
}

/** The same on storage of its own (prepareStorage), released afterwards. */
export async function withFreshServer<T>(
  env: NodeJS.ProcessEnv,
  use: (s: Running & { storage: Storage }) => Promise<T>,
  o: { timeoutMs?: number; main?: string } = {},
): Promise<T> {
  const storage = await prepareStorage();
  try {
    return await withServer(storage, env, (s) => use({ ...s, storage }), o);
  } finally {
    await storage.release();
  }
}

/** Spawns `command` with its output kept (and passed through to stderr with BENCH_VERBOSE). */
export function spawnChild(command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const proc = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  if (VERBOSE) {
    // The server logs info to stdout and warnings to stderr: a verbose run shows both.
    proc.stdout!.on("data", (c: Buffer) => process.stderr.write(c));
    proc.stderr!.on("data", (c: Buffer) => process.stderr.write(c));
  }
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

/** Spawns `node file` and resolves once its stdout matches `ready`. */
export function startChild(
  file: string,
  childEnv: NodeJS.ProcessEnv,
  ready: RegExp,
  nodeArgs: string[] = [],
  timeoutMs = START_TIMEOUT_MS,
): Promise<{ child: Child; match: RegExpExecArray }> {
  const child = spawnChild(process.execPath, [...nodeArgs, file], childEnv);
  const { proc, output } = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(file)} did not start:\n${output()}`)), timeoutMs);
    const onData = () => {
      const m = ready.exec(output());
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off("data", onData);
        resolve({ child, match: m });
      }
    };
    proc.stdout!.on("data", onData);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(file)} exited (${code}) before it was ready:\n${output()}`));
    });
  });
}

/** SIGTERM, then SIGKILL if it has not exited within `timeoutMs`. */
export async function stopChild(c: Child | undefined, timeoutMs = 60_000): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill("SIGTERM");
  const t = setTimeout(() => c.proc.kill("SIGKILL"), timeoutMs);
  await c.exited;
  clearTimeout(t);
}
