/**
 * `npm run bench:upload`: a CSV of 1,000,000 items (BENCH_UPLOAD_ROWS) uploaded to the real server's
 * POST /v1/upload/items, streamed from disk, against (in the same run) the same file COPYed straight into
 * PostgreSQL by one client (COPY … FORMAT csv into a table keyed by item_id): the ceiling.
 * Prints rows/s, the ratio, and the server's peak RSS (the file is streamed, so that stays flat as files grow).
 *
 * Settings (environment): BENCH_UPLOAD_ROWS (default 1000000); BENCH_UPLOAD_DISTINCT, the number of distinct
 * item ids (default: as many as rows; fewer makes a file of any size whose rows update the same items, so the
 * server's memory then shows the upload's own footprint, not a growing catalog); BENCH_DATABASE_URL, BENCH_KEEP,
 * BENCH_VERBOSE.
 */
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { finished } from "node:stream/promises";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { connectionUrl, prepareStorage, serverVersion, type Storage } from "./lib/database.js";
import { registerOrg } from "./lib/org.js";
import { startServer, stopChild, type Child } from "./lib/processes.js";
import { log } from "./lib/settings.js";
import { runBenchmark } from "./lib/run.js";

const ROWS = Number(process.env.BENCH_UPLOAD_ROWS ?? 1_000_000);
const DISTINCT = Number(process.env.BENCH_UPLOAD_DISTINCT ?? ROWS);
const TARGET_ROWS_PER_S = 100_000;
const CATEGORIES = ["books", "music", "garden", "toys", "kitchen", "sports", "tools", "games"];

/** A catalog CSV like a shop's export: fields, a price (a number), a brand and a category (attributes). */
async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const created = new Date(Date.now() - 86_400_000).toISOString();
  out.write("item_id,item_type,status,created_at,price,brand,category\n");
  let lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    lines.push(
      `item-${i % DISTINCT},product,${i % 50 === 0 ? "inactive" : "active"},${created},${(i % 9973) / 100},brand-${i % 1_000},${CATEGORIES[i % CATEGORIES.length]}`,
    );
    if (lines.length === 10_000) {
      if (!out.write(lines.join("\n") + "\n")) await new Promise<void>((r) => out.once("drain", () => r()));
      lines = [];
    }
  }
  out.end(lines.length > 0 ? lines.join("\n") + "\n" : "");
  await finished(out);
}

/** Peak resident memory of a process while `work` runs, sampled every 50 ms (Linux). */
async function peakRss<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ result: T; peakMb: number; startMb: number }> {
  const rss = () => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;
    } catch {
      return NaN; // not Linux, or the server is gone
    }
  };
  const startMb = rss();
  let peakMb = startMb;
  const timer = setInterval(() => (peakMb = Math.max(peakMb, rss())), 50);
  try {
    return { result: await work(), peakMb, startMb };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Streams the file to the upload endpoint, chunked (no Content-Length: this uWS build refuses a Content-Length
 * of 10^9 or more, and chunked bodies have no such limit); the server's answer and the seconds it took.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON answer, whose fields the report reads
function uploadFile(url: string, token: string, file: string): Promise<{ status: number; body: any; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/upload/items`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "text/csv", "transfer-encoding": "chunked" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), seconds: (performance.now() - started) / 1000 }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(req);
  });
}

/** The ceiling: the same file COPYed (CSV) by one client into a table (keyed by item_id when the ids are distinct), in one transaction. */
async function copyCeiling(databaseUrl: string, file: string): Promise<number> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query("DROP TABLE IF EXISTS bench_upload_ceiling");
    await c.query(`CREATE TABLE bench_upload_ceiling (item_id text ${DISTINCT >= ROWS ? "PRIMARY KEY" : ""}, item_type text NOT NULL, status text NOT NULL,
      created_at timestamptz, price numeric, brand text, category text)`);
    const started = performance.now();
    const sink = c.query(copyStreams.from("COPY bench_upload_ceiling FROM STDIN WITH (FORMAT csv, HEADER true)"));
    createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(sink);
    await finished(sink);
    const seconds = (performance.now() - started) / 1000;
    const { rows } = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM bench_upload_ceiling");
    await c.query("DROP TABLE bench_upload_ceiling");
    return rows[0].n / seconds;
  } finally {
    await c.end();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "recsvc-upload-"));
  const file = path.join(dir, "items.csv");
  let storage: Storage | undefined;
  let server: Child | undefined;
  try {
    log(`writing a CSV of ${fmt(ROWS)} items`);
    await writeCsv(file, ROWS);
    const mb = statSync(file).size / 1024 / 1024;
    storage = await prepareStorage();
    const started = await startServer(storage);
    server = started.server;
    const databaseUrl = connectionUrl(storage);
    const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    const version = await serverVersion(db);
    await db.end();
    const { token } = await registerOrg(started.url);

    log("ceiling: the file COPYed straight into PostgreSQL");
    const ceiling = await copyCeiling(databaseUrl, file);
    log("server: POST /v1/upload/items (new items)");
    const fresh = await peakRss(server.proc.pid, () => uploadFile(started.url, token, file));
    log("server: POST /v1/upload/items again (every row an update)");
    const again = await peakRss(server.proc.pid, () => uploadFile(started.url, token, file));

    const lines = [
      "",
      `Upload benchmark: ${fmt(ROWS)}-row CSV (${mb.toFixed(0)} MB, ${fmt(Math.min(DISTINCT, ROWS))} distinct items), loopback, PostgreSQL ${version} (${storage.dataDir ? "embedded" : "external"}), ${os.cpus().length} cores`,
      "",
      "run                          status  accepted   rejected  seconds  rows/s    vs COPY ceiling  server RSS start -> peak",
    ];
    for (const [name, r] of [
      ["upload (new items)", fresh],
      ["upload again (updates)", again],
    ] as const) {
      const u = r.result;
      const accepted = u.body?.data?.accepted ?? 0;
      lines.push(
        `${name.padEnd(28)} ${String(u.status).padEnd(7)} ${fmt(accepted).padEnd(10)} ${fmt(u.body?.data?.rejected ?? 0).padEnd(9)} ` +
          `${u.seconds.toFixed(1).padEnd(8)} ${fmt(accepted / u.seconds).padEnd(9)} ${((accepted / u.seconds / ceiling) * 100).toFixed(0).padStart(3)}%` +
          `             ${r.startMb.toFixed(0)} -> ${r.peakMb.toFixed(0)} MB`,
      );
    }
    const rate = (fresh.result.body?.data?.accepted ?? 0) / fresh.result.seconds;
    lines.push(
      "",
      `ceiling: the same file COPYed (FORMAT csv) by one client into a table${DISTINCT >= ROWS ? " keyed by item_id" : ""}: ${fmt(ceiling)} rows/s`,
      `target: >= ${fmt(TARGET_ROWS_PER_S)} rows/s for new items: ${fmt(rate)} rows/s, ${rate >= TARGET_ROWS_PER_S ? "met" : "MISSED"}`,
      "",
    );
    process.stdout.write(lines.join("\n"));
  } finally {
    await stopChild(server);
    await storage?.release();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
