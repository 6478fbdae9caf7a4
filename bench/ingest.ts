/**
 * `npm run bench:ingest`: durable ingestion throughput of the real server on a real PostgreSQL, next to the
 * two ceilings measured in the same run (rows COPYed straight into PostgreSQL from one client, and a bare
 * uWebSockets.js endpoint that only answers 202).
 *
 * Loopback only, bounded in time, stops by itself. Settings (environment):
 *   BENCH_DURATION_S      seconds per measured scenario (default 10)
 *   BENCH_WARMUP_S        seconds of warm-up per scenario, also used to size the measured run (default 2)
 *   BENCH_CONNECTIONS     connections for 1-event requests and the uWS ceiling (default 100)
 *   BENCH_CONNECTIONS_100 / BENCH_CONNECTIONS_1000   connections for the array scenarios (default 32 / 16)
 *   BENCH_SCENARIOS       comma-separated events-per-request list (default 1,100,1000)
 *   BENCH_SERVER_NODE_ARGS  extra node flags for the server (say, --cpu-prof --cpu-prof-dir=/tmp/prof)
 *   BENCH_VERBOSE=1       pass the server's stderr through
 *   BENCH_CEILINGS=0      skip the ceilings (quicker runs while tuning)
 *   BENCH_DATABASE_URL    use this PostgreSQL (a fresh database is created on it and dropped) instead of an
 *                         embedded one in a temporary DATA_DIR
 *   INGEST_*              passed through to the server
 */
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os, { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import copyStreams from "pg-copy-streams";

const MAIN = fileURLToPath(new URL("../src/main.js", import.meta.url));
const UWS_CEILING = fileURLToPath(new URL("./uwsCeiling.js", import.meta.url));

const env = process.env;
const DURATION_S = Number(env.BENCH_DURATION_S ?? 10);
const WARMUP_S = Number(env.BENCH_WARMUP_S ?? 2);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 100);
const SCENARIOS = (env.BENCH_SCENARIOS ?? "1,100,1000").split(",").map(Number);
const CONNECTIONS_FOR: Record<number, number> = {
  1: CONNECTIONS,
  100: Number(env.BENCH_CONNECTIONS_100 ?? 32),
  1000: Number(env.BENCH_CONNECTIONS_1000 ?? 16),
};
const COPY_CHUNK_ROWS = 10_000;
/** Prebuilt requests for the uWS ceiling: enough for ~60,000 req/s over the run; beyond, built on the fly. */
const CEILING_POOL_REQS = 60_000 * DURATION_S;
const USERS = 20_000;
const ITEMS = 5_000;

// ---------------------------------------------------------------------------------------------- processes

interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startChild(file: string, childEnv: NodeJS.ProcessEnv, ready: RegExp, nodeArgs: string[] = []): Promise<{ child: Child; match: RegExpExecArray }> {
  const proc = spawn(process.execPath, [...nodeArgs, file], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  if (env.BENCH_VERBOSE) proc.stderr!.on("data", (c: Buffer) => process.stderr.write(c));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const child: Child = { proc, output: () => out, exited };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${path.basename(file)} did not start:\n${out}`)), 120_000);
    const onData = () => {
      const m = ready.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.stdout!.off("data", onData);
        resolve({ child, match: m });
      }
    };
    proc.stdout!.on("data", onData);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(file)} exited (${code}) before it was ready:\n${out}`));
    });
  });
}

async function stopChild(c: Child | undefined, timeoutMs = 60_000): Promise<void> {
  if (!c || c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill("SIGTERM");
  const t = setTimeout(() => c.proc.kill("SIGKILL"), timeoutMs);
  await c.exited;
  clearTimeout(t);
}

function embeddedUrl(dataDir: string): string {
  const password = readFileSync(path.join(dataDir, "pg-password"), "utf8").trim();
  const conf = readFileSync(path.join(dataDir, "pg", "postgresql.conf"), "utf8");
  const port = [...conf.matchAll(/^port\s*=\s*(\d+)/gm)].at(-1)![1];
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** Stops an embedded cluster the server left running (it stops its own on a clean exit). */
async function stopEmbedded(dataDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pid, "SIGINT");
  } catch {
    return;
  }
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(100);
  }
}

async function createDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `recsvc_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

// ---------------------------------------------------------------------------------------------- payloads

const userIds = Array.from({ length: USERS }, (_, i) => `user-${i}`);
const itemIds = Array.from({ length: ITEMS }, (_, i) => `item-${i}`);
const pick = (a: string[]) => a[(Math.random() * a.length) | 0];

function eventJson(): string {
  return `{"user_id":"${pick(userIds)}","event_family":"engagement","event_name":"view","item_id":"${pick(itemIds)}","event_id":"${randomUUID()}"}`;
}

/** One request body: a single event object, or an array of `n` events; every event_id is fresh. */
function body(n: number): string {
  if (n === 1) return eventJson();
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) parts[i] = eventJson();
  return `[${parts.join(",")}]`;
}

interface Target {
  url: URL;
  headers: Record<string, string>;
}

/** A whole HTTP/1.1 request, ready for the socket. */
function rawRequest(t: Target, n: number): Buffer {
  const b = body(n);
  let head = `POST ${t.url.pathname} HTTP/1.1\r\nHost: ${t.url.host}\r\nConnection: keep-alive\r\n`;
  for (const [k, v] of Object.entries(t.headers)) head += `${k}: ${v}\r\n`;
  return Buffer.from(`${head}content-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`);
}

/**
 * Requests made ahead of time (so the load generator spends its CPU on sending), topped up on the fly when
 * short. Each request is used once: every event_id sent is fresh. (autocannon's own per-request hook,
 * setupRequest, rebuilds the request through several object copies and costs the load generator more
 * than half its rate on 1-event bodies; the prebuilt buffers are handed to its clients instead.)
 */
class RequestPool {
  private readonly reqs: Buffer[];
  private next = 0;
  constructor(private readonly target: Target, private readonly n: number, count: number) {
    this.reqs = new Array<Buffer>(count);
    for (let i = 0; i < count; i++) this.reqs[i] = rawRequest(target, n);
  }
  take(): Buffer {
    if (this.next < this.reqs.length) {
      const b = this.reqs[this.next];
      this.reqs[this.next++] = EMPTY; // let it go once sent
      return b;
    }
    return rawRequest(this.target, this.n);
  }
}
const EMPTY = Buffer.alloc(0);

// ---------------------------------------------------------------------------------------------- load

interface LoadResult {
  requests: number;
  accepted: number;
  other: number;
  errors: number;
  durationS: number;
  reqPerS: number;
  p50: number;
  p99: number;
}

/** Client internals used to hand each connection its next prebuilt request. */
interface AutocannonClient {
  getRequestBuffer(): Buffer;
}

function load(opts: { target: Target; connections: number; pool: RequestPool; amount?: number; durationS?: number }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.target.url.toString(),
        connections: opts.connections,
        pipelining: 1,
        timeout: 30,
        ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.durationS ?? DURATION_S }),
        method: "POST",
        headers: opts.target.headers,
        body: "{}",
        setupClient: (client) => {
          (client as unknown as AutocannonClient).getRequestBuffer = () => opts.pool.take();
        },
      },
      (err, r) => {
        clearTimeout(guard);
        if (err) {
          reject(err);
          return;
        }
        const stats = (r.statusCodeStats ?? {}) as Record<string, { count?: number }>;
        const accepted = stats["202"]?.count ?? 0;
        const answered = Object.values(stats).reduce((a, s) => a + (s.count ?? 0), 0);
        resolve({
          requests: answered,
          accepted,
          other: answered - accepted,
          errors: r.errors,
          durationS: r.duration,
          reqPerS: accepted / r.duration,
          p50: r.latency.p50,
          p99: r.latency.p99,
        });
      },
    );
    // A measured run is sized for DURATION_S; never let it run away.
    const guard = setTimeout(() => instance.stop(), (opts.durationS ?? DURATION_S) * 3000 + 5000);
  });
}

// ---------------------------------------------------------------------------------------------- scenarios

interface Row {
  n: number;
  connections: number;
  load: LoadResult;
  eventsPerS: number;
  stored: number;
  expected: number;
  commits: number;
  /** CPU time of the server's front (main) thread per request, in microseconds. */
  frontCpuUsPerReq: number;
  /** CPU seconds per second used by the whole server process (front + writer threads). */
  serverCpuShare: number;
  /** CPU seconds per second used by PostgreSQL (embedded only). */
  postgresCpuShare: number;
  /** Server + PostgreSQL CPU per stored event, in microseconds: the cost under any contention. */
  cpuUsPerEvent: number;
}

/** CPU seconds used so far by a process (all threads) and by its main thread; Linux /proc, else NaN. */
function cpuSeconds(pid: number | undefined): { all: number; main: number } {
  const read = (file: string) => {
    try {
      const f = readFileSync(file, "utf8");
      const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
    } catch {
      return NaN;
    }
  };
  if (pid === undefined) return { all: NaN, main: NaN };
  return { all: read(`/proc/${pid}/stat`), main: read(`/proc/${pid}/task/${pid}/stat`) };
}

/** CPU seconds per thread of a process (Linux), for the stderr breakdown of where the server's time goes. */
function threadCpu(pid: number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (pid === undefined) return out;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
        const comm = f.slice(f.indexOf("(") + 1, f.lastIndexOf(")"));
        const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
        out.set(`${comm}#${tid}`, (Number(fields[11]) + Number(fields[12])) / 100);
      } catch {
        // thread ended
      }
    }
  } catch {
    // not Linux
  }
  return out;
}

/** CPU seconds used so far by a PostgreSQL cluster: the postmaster, its live children and those it reaped. */
function postgresCpuSeconds(dataDir: string | undefined): number {
  if (!dataDir) return NaN;
  try {
    const pm = Number(readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
    let total = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let f: string;
      try {
        f = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      if (pid === pm) total += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      else if (Number(fields[1]) === pm) total += Number(fields[11]) + Number(fields[12]);
    }
    return total / 100;
  } catch {
    return NaN;
  }
}

async function countEvents(db: pg.Pool, org: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE org = $1", [org]);
  return Number(rows[0].n);
}

async function commits(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ n: string }>("SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()");
  return Number(rows[0].n);
}

/** Waits until no more events arrive (requests cut off by a warm-up's end are written a moment later). */
async function settle(db: pg.Pool, org: number): Promise<number> {
  let last = await countEvents(db, org);
  for (;;) {
    await sleep(300);
    const now = await countEvents(db, org);
    if (now === last) return now;
    last = now;
  }
}

async function ingestScenario(url: string, db: pg.Pool, org: number, pk: string, n: number, serverPid: number | undefined, dataDir: string | undefined): Promise<Row> {
  const connections = CONNECTIONS_FOR[n] ?? 16;
  const target: Target = { url: new URL(`${url}/v1/events/ingest`), headers: { "content-type": "application/json", "x-api-key": pk } };
  log(`  ${n}-event requests: warm-up ${WARMUP_S}s (-c ${connections})`);
  const warm = await load({ target, connections, pool: new RequestPool(target, n, 0), durationS: WARMUP_S });
  // Size the measured run from the warm-up rate so that it lasts about DURATION_S and can be counted exactly.
  const amount = Math.max(connections * 4, Math.round(warm.reqPerS * DURATION_S));
  const pool = new RequestPool(target, n, Math.min(amount + connections, Math.ceil(3_000_000 / n)));
  const before = await settle(db, org);
  const commitsBefore = await commits(db);
  log(`  ${n}-event requests: ${amount} requests (about ${DURATION_S}s)`);
  const threadsBefore = threadCpu(serverPid);
  const cpuBefore = cpuSeconds(serverPid);
  const pgBefore = postgresCpuSeconds(dataDir);
  const r = await load({ target, connections, pool, amount });
  const cpuAfter = cpuSeconds(serverPid);
  const pgAfter = postgresCpuSeconds(dataDir);
  const busy = [...threadCpu(serverPid)]
    .map(([t, after]) => [t, (after - (threadsBefore.get(t) ?? 0)) / r.durationS] as const)
    .filter(([, share]) => share >= 0.01)
    .sort((a, b) => b[1] - a[1]);
  log(`  server threads (cores busy): ${busy.map(([t, share]) => `${t} ${(share * 100).toFixed(0)}%`).join(", ")}`);
  const after = await settle(db, org);
  const commitsAfter = await commits(db);
  return {
    n,
    connections,
    load: r,
    eventsPerS: (r.accepted * n) / r.durationS,
    stored: after - before,
    expected: r.accepted * n,
    commits: commitsAfter - commitsBefore,
    frontCpuUsPerReq: ((cpuAfter.main - cpuBefore.main) * 1e6) / Math.max(1, r.requests),
    serverCpuShare: (cpuAfter.all - cpuBefore.all) / r.durationS,
    postgresCpuShare: (pgAfter - pgBefore) / r.durationS,
    cpuUsPerEvent: ((cpuAfter.all - cpuBefore.all + pgAfter - pgBefore) * 1e6) / Math.max(1, r.accepted * n),
  };
}

/**
 * Ceiling (a): the same rows COPYed straight into a table keyed by (org, event_id), 10,000 rows per COPY (one
 * transaction each), from `clients` connections at once (1 is the ceiling the target refers to; the server
 * itself writes through INGEST_WRITERS connections, so the 2-client figure is printed alongside).
 */
async function copyCeiling(databaseUrl: string, org: number, clients: number): Promise<{ rows: number; seconds: number; rowsPerS: number }> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const conns: pg.Client[] = [];
  try {
    await admin.query("DROP TABLE IF EXISTS bench_copy_ceiling");
    await admin.query("CREATE TABLE bench_copy_ceiling (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS, PRIMARY KEY (org, event_id))");
    const chunk = () => {
      const at = new Date().toISOString();
      let s = "";
      for (let i = 0; i < COPY_CHUNK_ROWS; i++) {
        s += `${org}\t${randomUUID()}\t${pick(userIds)}\t${pick(itemIds)}\tengagement\tview\t1\t\\N\t\\N\t\\N\t${at}\n`;
      }
      return s;
    };
    const copy = async (c: pg.Client, text: string) => {
      const stream = c.query(copyStreams.from(
        "COPY bench_copy_ceiling (org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at) FROM STDIN",
      ));
      await new Promise<void>((resolve, reject) => {
        stream.once("finish", resolve);
        stream.once("error", reject);
        stream.end(text);
      });
    };
    for (let i = 0; i < clients; i++) {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      conns.push(c);
    }
    let rows = 0;
    let measuring = false;
    // Each client: warm-up, then the measured stretch; its next chunk is built while the current one is written.
    const loop = async (c: pg.Client, until: number) => {
      let next = chunk();
      while (performance.now() < until) {
        const p = copy(c, next);
        next = chunk();
        await p;
        if (measuring) rows += COPY_CHUNK_ROWS;
      }
    };
    const warmUntil = performance.now() + WARMUP_S * 1000;
    await Promise.all(conns.map((c) => loop(c, warmUntil)));
    measuring = true;
    const started = performance.now();
    await Promise.all(conns.map((c) => loop(c, started + DURATION_S * 1000)));
    const seconds = (performance.now() - started) / 1000;
    const { rows: counted } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM bench_copy_ceiling");
    await admin.query("DROP TABLE bench_copy_ceiling");
    if (Number(counted[0].n) < rows) throw new Error("COPY ceiling: fewer rows stored than sent");
    return { rows, seconds, rowsPerS: rows / seconds };
  } finally {
    for (const c of conns) await c.end().catch(() => undefined);
    await admin.end();
  }
}

/** Ceiling (b): a bare uWS endpoint that JSON.parses 1-event bodies and answers 202. */
async function uwsCeiling(): Promise<LoadResult & { frontCpuUsPerReq: number }> {
  const { child, match } = await startChild(UWS_CEILING, { ...env }, /listening on (\d+)/);
  try {
    const target: Target = { url: new URL(`http://127.0.0.1:${match[1]}/v1/events/ingest`), headers: { "content-type": "application/json", "x-api-key": "svc_pk_unused" } };
    await load({ target, connections: CONNECTIONS, pool: new RequestPool(target, 1, 0), durationS: WARMUP_S });
    const pool = new RequestPool(target, 1, Math.round(CEILING_POOL_REQS));
    const before = cpuSeconds(child.proc.pid);
    const r = await load({ target, connections: CONNECTIONS, pool, durationS: DURATION_S });
    const after = cpuSeconds(child.proc.pid);
    return { ...r, frontCpuUsPerReq: ((after.main - before.main) * 1e6) / Math.max(1, r.requests) };
  } finally {
    await stopChild(child);
  }
}

// ---------------------------------------------------------------------------------------------- setup

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function registerOrg(url: string): Promise<{ orgId: string; pk: string }> {
  const b = randomBytes(3);
  const reg = await post(`${url}/auth/register`, { email: `bench-${randomUUID()}@example.com`, password: "benchmark password", organisation: "Benchmark" }, {
    "x-forwarded-for": `10.${b[0]}.${b[1]}.${b[2]}`,
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const keys = await post(`${url}/v1/keys`, {}, { authorization: `Bearer ${reg.body.data.token}` });
  if (keys.status !== 201) throw new Error(`key generation failed: ${keys.status} ${JSON.stringify(keys.body)}`);
  return { orgId: reg.body.data.organisation.id, pk: keys.body.data.publishable_key };
}

// ---------------------------------------------------------------------------------------------- report

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(s + "\n");
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function settingsLine(): string {
  const keys = Object.keys(env).filter((k) => k.startsWith("INGEST_")).sort();
  return keys.length ? keys.map((k) => `${k}=${env[k]}`).join(" ") : "defaults";
}

// ---------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  let dataDir: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  let server: Child | undefined;
  let db: pg.Pool | undefined;
  const serverEnv: NodeJS.ProcessEnv = {
    ...env,
    PORT: "0",
    HOST: "127.0.0.1",
    TRUST_PROXY: "1",
    RATE_LIMIT_MAX: "1000000000",
    LOG_LEVEL: env.LOG_LEVEL ?? "warn",
  };
  delete serverEnv.DATABASE_URL;
  const loadStart = os.loadavg()[0];
  try {
    if (env.BENCH_DATABASE_URL) {
      const created = await createDatabase(env.BENCH_DATABASE_URL);
      drop = created.drop;
      serverEnv.DATABASE_URL = created.url;
    } else {
      dataDir = mkdtempSync(path.join(tmpdir(), "recsvc-bench-"));
      serverEnv.DATA_DIR = dataDir;
    }
    log(`starting the server (${dataDir ? `embedded PostgreSQL in ${dataDir}` : "external PostgreSQL"})`);
    const nodeArgs = env.BENCH_SERVER_NODE_ARGS ? env.BENCH_SERVER_NODE_ARGS.split(" ").filter(Boolean) : [];
    const started = await startChild(MAIN, serverEnv, /listening on (http:\/\/\S+)/, nodeArgs);
    server = started.child;
    const url = started.match[1];
    const databaseUrl = serverEnv.DATABASE_URL ?? embeddedUrl(dataDir!);
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    const { orgId, pk } = await registerOrg(url);
    const { rows } = await db.query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [orgId]);
    const org = rows[0].seq;
    const { rows: pgv } = await db.query<{ v: string }>("SELECT current_setting('server_version') AS v");

    const skipCeilings = env.BENCH_CEILINGS === "0";
    log("ceiling (b): bare uWS endpoint, answer only");
    const uws = skipCeilings ? { reqPerS: NaN, p50: NaN, p99: NaN, frontCpuUsPerReq: NaN } : await uwsCeiling();
    log("ceiling (a): direct COPY into PostgreSQL");
    const copy = skipCeilings ? { rowsPerS: NaN } : await copyCeiling(databaseUrl, org, 1);
    log("ceiling (a'): direct COPY into PostgreSQL from two clients");
    const copy2 = skipCeilings ? { rowsPerS: NaN } : await copyCeiling(databaseUrl, org, 2);
    const results: Row[] = [];
    for (const n of SCENARIOS) {
      log(`server: POST /v1/events/ingest`);
      results.push(await ingestScenario(url, db, org, pk, n, server.proc.pid, dataDir));
    }

    const out: string[] = [];
    out.push("");
    out.push(`Ingest benchmark — ${DURATION_S}s per scenario, loopback, PostgreSQL ${pgv[0].v} (${dataDir ? "embedded" : "external"}), ${settingsLine()}`);
    out.push(`load average (1 min) at start ${loadStart.toFixed(2)}, at end ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores (other work on the machine skews every figure)`);
    out.push("");
    out.push("Durable ingestion (202 only after commit). front µs/req: CPU of the server's main thread per request; server/PG CPU:");
    out.push("cores busy in the server process and in PostgreSQL; µs/event: their CPU per stored event (what limits the rate when cores are shared).");
    out.push(table(
      ["events/request", "conns", "requests", "req/s", "events/s", "p50 ms", "p99 ms", "commits", "front µs/req", "server CPU", "PG CPU", "µs/event", "acked events", "stored", "check"],
      results.map((r) => [
        String(r.n), String(r.connections), int(r.load.requests), int(r.load.reqPerS), int(r.eventsPerS),
        r.load.p50.toFixed(1), r.load.p99.toFixed(1), int(r.commits), int(r.frontCpuUsPerReq), `${(r.serverCpuShare * 100).toFixed(0)}%`,
        `${(r.postgresCpuShare * 100).toFixed(0)}%`, r.cpuUsPerEvent.toFixed(1),
        int(r.expected), int(r.stored),
        r.stored === r.expected && r.load.other === 0 && r.load.errors === 0
          ? "ok"
          : `MISMATCH (non-202: ${r.load.other}, errors: ${r.load.errors})`,
      ]),
    ));
    out.push("");
    out.push("Ceilings (same run):");
    out.push(table(
      ["ceiling", "figure"],
      [
        ["(a) direct COPY, one client, 10,000 rows per COPY", `${int(copy.rowsPerS)} rows/s`],
        ["(a') the same from two clients at once (for reference)", `${int(copy2.rowsPerS)} rows/s`],
        [`(b) bare uWS, JSON.parse + 202, 1-event bodies, -c ${CONNECTIONS}`, `${int(uws.reqPerS)} req/s (p50 ${uws.p50.toFixed(1)} ms, p99 ${uws.p99.toFixed(1)} ms, ${int(uws.frontCpuUsPerReq)} µs CPU/req)`],
      ],
    ));
    out.push("");
    out.push("Against the ceilings and targets:");
    const targets: string[][] = [];
    const big = results.find((r) => r.n === 1000);
    const single = results.find((r) => r.n === 1);
    if (big) {
      targets.push(["1,000-event arrays vs direct COPY", `${int(big.eventsPerS)} / ${int(copy.rowsPerS)}`, pct(big.eventsPerS / copy.rowsPerS), ">= 80%", big.eventsPerS >= 0.8 * copy.rowsPerS ? "met" : "MISSED"]);
      targets.push(["1,000-event arrays, durable events/s", int(big.eventsPerS), "", ">= 50,000", big.eventsPerS >= 50_000 ? "met" : "MISSED"]);
      targets.push(["1,000-event arrays vs two-client COPY", `${int(big.eventsPerS)} / ${int(copy2.rowsPerS)}`, pct(big.eventsPerS / copy2.rowsPerS), "(reference)", ""]);
    }
    for (const r of results.filter((x) => x.n !== 1 && x.n !== 1000)) {
      targets.push([`${r.n}-event arrays vs direct COPY`, `${int(r.eventsPerS)} / ${int(copy.rowsPerS)}`, pct(r.eventsPerS / copy.rowsPerS), "", ""]);
    }
    if (single) {
      targets.push(["single-event req/s vs bare uWS", `${int(single.load.reqPerS)} / ${int(uws.reqPerS)}`, pct(single.load.reqPerS / uws.reqPerS), ">= 50%", single.load.reqPerS >= 0.5 * uws.reqPerS ? "met" : "MISSED"]);
    }
    out.push(table(["figure", "measured / ceiling", "ratio", "target", ""], targets));
    out.push("");
    process.stdout.write(out.join("\n") + "\n");
  } finally {
    await db?.end().catch(() => undefined);
    await stopChild(server);
    if (server && server.proc.exitCode !== 0) log(`server exit ${server.proc.exitCode ?? server.proc.signalCode}:\n${server.output().slice(-2000)}`);
    if (dataDir) await stopEmbedded(dataDir);
    if (dataDir && !env.BENCH_KEEP) rmSync(dataDir, { recursive: true, force: true });
    await drop?.().catch((e: Error) => log(`could not drop the benchmark database: ${e.message}`));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`benchmark failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
