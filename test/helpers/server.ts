import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startEmbeddedDatabase } from "../../src/db/embedded.js";
import { setLogLevel } from "../../src/wire/log.js";

const MAIN = fileURLToPath(new URL("../../dist/src/main.js", import.meta.url));

/**
 * A real server process on loopback, on a real PostgreSQL: embedded (own DATA_DIR) by default, or a fresh
 * database created on the server named by TEST_DATABASE_URL (CI runs the suite both ways).
 */
export interface TestServer {
  url: string;
  databaseUrl: string;
  dataDir: string | undefined;
  process: ChildProcess;
  output: () => string;
  db(): pg.Pool;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no flush, no goodbye. */
  kill(): Promise<void>;
  /** Removes what the server left (data dir, test database). */
  cleanup(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse the data of an earlier server (a restart). */
  reuse?: Pick<TestServer, "dataDir" | "databaseUrl">;
  /** Force the embedded database even when TEST_DATABASE_URL is set. */
  embedded?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const external = process.env.TEST_DATABASE_URL && !opts.embedded;
  let dataDir = opts.reuse?.dataDir;
  let databaseUrl = opts.reuse?.databaseUrl ?? "";
  let dropDatabase: (() => Promise<void>) | undefined;
  if (!opts.reuse) {
    if (external) ({ databaseUrl, drop: dropDatabase } = await createTestDatabase(process.env.TEST_DATABASE_URL!));
    else dataDir = mkdtempSync(path.join(tmpdir(), "recsvc-test-"));
  }
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "1",
    LOG_LEVEL: "warn",
    ...opts.env,
  };
  delete env.DATABASE_URL;
  if (external || (opts.reuse && !dataDir)) env.DATABASE_URL = databaseUrl;
  else env.DATA_DIR = dataDir!;

  const child = spawn(process.execPath, [MAIN], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 90_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  if (dataDir) databaseUrl = embeddedUrl(dataDir);

  let pool: pg.Pool | undefined;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url,
    databaseUrl,
    dataDir,
    process: child,
    output: () => out,
    db: () => (pool ??= testPool(databaseUrl)),
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async cleanup() {
      await pool?.end();
      pool = undefined;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      if (dataDir) {
        await stopEmbedded(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
      await dropDatabase?.();
    },
  };
}

/**
 * A PostgreSQL with no service process on it, for processes started with `reuse: database`: they may all be
 * CLUSTER=1 (a process without it must be alone on its database) and be killed without taking it with them.
 */
export interface TestDatabase {
  databaseUrl: string;
  dataDir: string | undefined;
  db(): pg.Pool;
  cleanup(): Promise<void>;
}

/** As startServer chooses its database: embedded (own DATA_DIR) by default, or a fresh one on TEST_DATABASE_URL. */
export async function startDatabase(opts: Pick<StartOptions, "embedded"> = {}): Promise<TestDatabase> {
  let pool: pg.Pool | undefined;
  const db = (url: string) => () => (pool ??= testPool(url));
  if (process.env.TEST_DATABASE_URL && !opts.embedded) {
    const { databaseUrl, drop } = await createTestDatabase(process.env.TEST_DATABASE_URL);
    return { databaseUrl, dataDir: undefined, db: db(databaseUrl), cleanup: async () => (await pool?.end(), await drop()) };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "recsvc-test-"));
  setLogLevel("warn"); // as the servers run in tests: its start-up lines would only crowd the test's output
  const embedded = await startEmbeddedDatabase(dataDir);
  return {
    databaseUrl: embedded.url,
    dataDir,
    db: db(embedded.url),
    async cleanup() {
      await pool?.end();
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The URL of an embedded cluster, read from the files the server keeps in its data dir. */
export function embeddedUrl(dataDir: string): string {
  const password = readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  const conf = readFileSync(path.join(dataDir, "pg", "postgresql.conf"), "utf8");
  const port = [...conf.matchAll(/^port\s*=\s*(\d+)/gm)].at(-1)![1];
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** Stops an embedded cluster left running (after a SIGKILL the server cannot stop it itself). */
export async function stopEmbedded(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, "pg", "postmaster.pid");
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    process.kill(pid, "SIGINT");
  } catch {
    return; // not running
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function createTestDatabase(adminUrl: string): Promise<{ databaseUrl: string; drop: () => Promise<void> }> {
  const name = `recsvc_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    databaseUrl: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A pool for a test's own queries. pg's `end()` resolves before its clients' sockets close, so the server
 * stopped just after may still terminate one of them ("terminating connection due to administrator command"):
 * a server stopped on purpose drops connections, and that is no error of the test's.
 */
export function testPool(url: string, opts: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2, ...opts });
  pool.on("error", () => undefined);
  return pool;
}

/** A port free now, for a server that will be restarted on it (PORT=0 cannot be: see test/client/browserClient.test.ts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}
