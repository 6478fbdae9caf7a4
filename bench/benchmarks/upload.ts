/**
 * `npm run bench:upload`: a CSV of BENCH_UPLOAD_ROWS items (default 1,000,000) streamed from disk to the real
 * server's POST /v1/upload/items, against the same file COPYed (FORMAT csv) straight into PostgreSQL by one client:
 * rows/s, the ratio, and the server's peak RSS. BENCH_UPLOAD_DISTINCT: distinct item ids (default: one a row;
 * fewer makes rows update the same items, so memory shows the upload's own footprint, not a growing catalog).
 *
 * BENCH_UPLOAD_BASELINE=<another build's dist folder>: that build's server and this one's alternated
 * BENCH_UPLOAD_ROUNDS times (default 3), rows/s of each and their ratio (no COPY ceiling).
 *
 * BENCH_UPLOAD_SCENARIO=hostile: three hostile uploads at once, each from its own organisation, for BENCH_HOSTILE_S
 * seconds (default 20): a CSV of 1,000 columns with rows just under the 1 MiB record cap; NDJSON lines just under
 * the cap of ~90,000 keys; a JSON array of elements just under the cap holding ~350,000 empty arrays. Meanwhile GET
 * /healthz at BENCH_HEALTHZ_PER_S (default 50), timed from each request's due time on a thread of its own, after the
 * same polling of the idle server. With BENCH_UPLOAD_BASELINE, alternated as above.
 * BENCH_DATABASE_URL, BENCH_KEEP and BENCH_VERBOSE as for bench:ingest.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import { connectionUrl, serverVersion } from "../kit/storage.js";
import { registerOrg } from "../kit/org.js";
import { withFreshServer } from "../kit/processes.js";
import { call } from "../kit/api.js";
import { fromEnv, POSITIVE, WHOLE } from "../kit/flags.js";
import { rssMb } from "../kit/proc.js";
import { int, median, percentile } from "../kit/table.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";
import { pollHealthz } from "./upload/healthzPoller.js";

const ROWS = fromEnv.number("BENCH_UPLOAD_ROWS", 1_000_000, WHOLE);
const SCENARIO = fromEnv.text("BENCH_UPLOAD_SCENARIO", "normal");
const BASELINE = fromEnv.text("BENCH_UPLOAD_BASELINE");
const ROUNDS = fromEnv.number("BENCH_UPLOAD_ROUNDS", 3, WHOLE);
const HOSTILE_S = fromEnv.number("BENCH_HOSTILE_S", 20, { min: 3 });
const HEALTHZ_PER_S = fromEnv.number("BENCH_HEALTHZ_PER_S", 50, POSITIVE);
const THIS_BUILD = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const DISTINCT = fromEnv.number("BENCH_UPLOAD_DISTINCT", ROWS, WHOLE);
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

/** Peak resident memory of a process while `work` runs, sampled every 50 ms. */
async function peakRss<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ result: T; peakMb: number; startMb: number }> {
  const rss = () => rssMb(pid);
  const startMb = rss();
  let peakMb = startMb;
  const timer = setInterval(() => (peakMb = Math.max(peakMb, rss())), 50);
  try {
    return { result: await work(), peakMb, startMb };
  } finally {
    clearInterval(timer);
  }
}

const uploadFile = (url: string, token: string, file: string): Promise<Sent> =>
  uploadBody(url, token, "text/csv", createReadStream(file, { highWaterMark: 256 * 1024 }));

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

/** Opens the server's GET /metrics, whose event-loop delay figures (prom-client's) the hostile scenario reads. */
const METRICS_TOKEN = `bench-${randomUUID()}`;

/** The build's server (this one's or the baseline's) on fresh storage, for `run`. */
const withServer = <T>(build: string, run: (url: string) => Promise<T>): Promise<T> =>
  withFreshServer({ METRICS_TOKEN }, ({ url }) => run(url), { main: path.join(build, "src", "main.js") });

/** The baseline and this build, alternated ROUNDS times, starting with the baseline. */
function alternation(): Array<{ name: "old" | "new"; build: string }> {
  const out: Array<{ name: "old" | "new"; build: string }> = [];
  for (let r = 0; r < ROUNDS; r++) out.push({ name: "old", build: BASELINE! }, { name: "new", build: THIS_BUILD });
  return out;
}

/** `use` with the catalog CSV of ROWS items written to a temporary file, and its size in MB. */
async function withCsv(use: (file: string, mb: number) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "recsvc-upload-"));
  const file = path.join(dir, "items.csv");
  try {
    log(`writing a CSV of ${int(ROWS)} items`);
    await writeCsv(file, ROWS);
    await use(file, statSync(file).size / 1024 / 1024);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The catalog CSV uploaded to the baseline's server and to this build's, alternated: rows/s of each. */
function normalAlternated(): Promise<void> {
  return withCsv(async (file, mb) => {
    const rates: Record<"old" | "new", number[]> = { old: [], new: [] };
    const lines = [
      "",
      `Upload benchmark, old (${BASELINE}) and new (${THIS_BUILD}) alternated: ${int(ROWS)}-row CSV (${mb.toFixed(0)} MB), ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the start`,
      "",
      "build  status  accepted   seconds  rows/s",
    ];
    for (const { name, build } of alternation()) {
      log(`${name}: POST /v1/upload/items`);
      const u = await withServer(build, async (url) => uploadFile(url, (await registerOrg(url)).token, file));
      const accepted = u.body?.data?.accepted ?? 0;
      rates[name].push(accepted / u.seconds);
      lines.push(
        `${name.padEnd(6)} ${String(u.status).padEnd(7)} ${int(accepted).padEnd(10)} ${u.seconds.toFixed(1).padEnd(8)} ${int(accepted / u.seconds)}`,
      );
    }
    lines.push(
      "",
      `median rows/s: old ${int(median(rates.old))}, new ${int(median(rates.new))}; new/old ${(median(rates.new) / median(rates.old)).toFixed(2)}`,
      "",
    );
    process.stdout.write(lines.join("\n"));
  });
}

/**
 * A body made by `next(i)` (the i-th piece) until `deadline` (performance.now()), then `last`. One piece is
 * made at a time, as the socket takes them: the benchmark's own event loop, which times /healthz, stays free.
 */
function timedBody(deadline: number, next: (i: number) => string, last = ""): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; performance.now() < deadline; i++) yield Buffer.from(next(i));
      if (last) yield Buffer.from(last);
    })(),
    { objectMode: false, highWaterMark: 1 },
  );
}

/** Just under the record cap (1 MiB), whatever the build. */
const NEAR_CAP = 1024 * 1024 - 2048;

/** The three hostile bodies, each ending at `deadline`: wide CSV, NDJSON of many keys, a JSON array of many arrays. */
function hostileBodies(deadline: number): Array<{ name: string; contentType: string; body: Readable }> {
  const columns = ["item_id", "item_type", "status", ...Array.from({ length: 997 }, (_, i) => `a${i}`)];
  const cells = Array.from({ length: 997 }, () => "x".repeat(Math.floor((NEAR_CAP - 40) / 997) - 1)).join(",");
  let keys = "";
  for (let k = 0; keys.length < NEAR_CAP - 80; k++) keys += `"k${k}":${k},`;
  let arrays = "";
  while (arrays.length < NEAR_CAP - 80) arrays += "[],";
  return [
    {
      name: "CSV, 1,000 columns, rows of ~1 MiB",
      contentType: "text/csv",
      body: timedBody(deadline, (i) => (i === 0 ? columns.join(",") + "\n" : `w${i},product,active,${cells}\n`)),
    },
    {
      name: "NDJSON, lines of ~1 MiB, ~90,000 keys",
      contentType: "application/x-ndjson",
      body: timedBody(deadline, (i) => `{"item_id":"n${i}","item_type":"t","status":"active","attributes":{${keys}"z":0}}\n`),
    },
    {
      name: "JSON array, elements of ~1 MiB of []",
      contentType: "application/json",
      body: timedBody(
        deadline,
        (i) => `${i === 0 ? "[" : ","}{"item_id":"j${i}","item_type":"t","status":"active","attributes":{"a":[${arrays}0]}}\n`,
        "]",
      ),
    },
  ];
}

/** An upload's answer (the service's JSON, whose fields the report reads), the seconds it took and the bytes sent. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
type Sent = { status: number; body: any; seconds: number; bytes: number };

/** Streams `body` to the upload endpoint chunked (this uWS build refuses a Content-Length of 10^9 or more). */
function uploadBody(url: string, token: string, contentType: string, body: Readable): Promise<Sent> {
  const started = performance.now();
  let bytes = 0;
  body.on("data", (c: string | Buffer) => (bytes += Buffer.byteLength(c)));
  return new Promise((resolve) => {
    const req = request(
      `${url}/v1/upload/items`,
      { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": contentType, "transfer-encoding": "chunked" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString());
          } catch {
            parsed = { raw: Buffer.concat(chunks).toString().slice(0, 200) };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, seconds: (performance.now() - started) / 1000, bytes });
        });
      },
    );
    // The server may answer (and close) before the body ends: that answer is what counts.
    req.on("error", (err) => resolve({ status: 0, body: { error: err.message }, seconds: (performance.now() - started) / 1000, bytes }));
    body.pipe(req);
  });
}

/**
 * The front thread's event-loop delay since the last call (the server's own monitor, prom-client's, which
 * resets at each scrape; 10 ms resolution): unlike /healthz timed from here, it excludes this process's delays.
 */
async function loopDelay(url: string): Promise<string> {
  const { text } = await call(`${url}/metrics`, { token: METRICS_TOKEN });
  const ms = (name: string) =>
    (Number(new RegExp(`^recsvc_nodejs_eventloop_lag_${name}_seconds(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1]) * 1000).toFixed(1);
  return `p50 ${ms("p50")}  p99 ${ms("p99")}  max ${ms("max")} ms`;
}

function percentiles(xs: number[]): string {
  const at = (q: number) => percentile(xs, q).toFixed(1);
  return `p50 ${at(0.5)}  p99 ${at(0.99)}  max ${at(1)} ms (n ${xs.length})`;
}

/** Three hostile uploads at once while /healthz is polled; on this build, or alternated with the baseline. */
async function hostile(): Promise<void> {
  const runs = BASELINE ? alternation() : [{ name: "new" as const, build: THIS_BUILD }];
  const lines = [
    "",
    `Hostile uploads: three at once for ${HOSTILE_S} s, each from its own organisation, /healthz at ${HEALTHZ_PER_S}/s; ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the start`,
  ];
  const p99: Record<"old" | "new", number[]> = { old: [], new: [] };
  for (const { name, build } of runs) {
    log(`${name}: idle /healthz, then three hostile uploads`);
    await withServer(build, async (url) => {
      const tokens = await Promise.all([0, 1, 2].map(async () => (await registerOrg(url)).token));
      await loopDelay(url);
      const idle = await pollHealthz(url, 5, HEALTHZ_PER_S);
      const idleLoop = await loopDelay(url);
      const deadline = performance.now() + (HOSTILE_S - 2) * 1000;
      const uploads = hostileBodies(deadline).map((h, i) => ({ name: h.name, answer: uploadBody(url, tokens[i]!, h.contentType, h.body) }));
      const busy = await pollHealthz(url, HOSTILE_S, HEALTHZ_PER_S);
      const answers = await Promise.all(uploads.map((u) => u.answer));
      const busyLoop = await loopDelay(url);
      p99[name].push(percentile(busy.latencies, 0.99));
      lines.push(
        "",
        `${name} (${build})`,
        `  /healthz idle:            ${percentiles(idle.latencies)}${idle.failed ? `, ${idle.failed} failed` : ""}`,
        `  /healthz during uploads:  ${percentiles(busy.latencies)}${busy.failed ? `, ${busy.failed} failed` : ""}; the slowest sent ${busy.worstAt.toFixed(1)} s in`,
        `  front thread's event-loop delay (server's monitor): idle ${idleLoop}; during uploads ${busyLoop}`,
      );
      uploads.forEach((u, i) => {
        const a = answers[i]!;
        const mb = a.bytes / 1024 / 1024;
        const data = a.body?.data;
        const outcome = data
          ? `accepted ${int(data.accepted)}, rejected ${int(data.rejected)}`
          : `${a.body?.error ?? ""} ${String(a.body?.message ?? "").slice(0, 80)}`;
        lines.push(
          `  ${u.name.padEnd(40)} ${String(a.status).padEnd(4)} ${mb.toFixed(0).padStart(5)} MB sent in ${a.seconds.toFixed(1)} s (${(mb / a.seconds).toFixed(1)} MB/s); ${outcome}`,
        );
      });
    });
  }
  if (BASELINE) lines.push("", `median /healthz p99 during the uploads: old ${median(p99.old).toFixed(1)} ms, new ${median(p99.new).toFixed(1)} ms`);
  lines.push("");
  process.stdout.write(lines.join("\n"));
}

async function main(): Promise<void> {
  if (SCENARIO === "hostile") return hostile();
  if (SCENARIO !== "normal") throw new Error(`BENCH_UPLOAD_SCENARIO: "normal" or "hostile", not "${SCENARIO}"`);
  if (BASELINE) return normalAlternated();
  return normalAgainstCeiling();
}

/** This build's upload of the catalog CSV against the COPY ceiling (the default). */
function normalAgainstCeiling(): Promise<void> {
  return withCsv((file, mb) =>
    withFreshServer({}, async ({ server, url, storage }) => {
      const databaseUrl = connectionUrl(storage);
      const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      const version = await serverVersion(db);
      await db.end();
      const { token } = await registerOrg(url);

      log("ceiling: the file COPYed straight into PostgreSQL");
      const ceiling = await copyCeiling(databaseUrl, file);
      log("server: POST /v1/upload/items (new items)");
      const fresh = await peakRss(server.proc.pid, () => uploadFile(url, token, file));
      log("server: POST /v1/upload/items again (every row an update)");
      const again = await peakRss(server.proc.pid, () => uploadFile(url, token, file));

      const lines = [
        "",
        `Upload benchmark: ${int(ROWS)}-row CSV (${mb.toFixed(0)} MB, ${int(Math.min(DISTINCT, ROWS))} distinct items), loopback, PostgreSQL ${version} (${storage.dataDir ? "embedded" : "external"}), ${os.cpus().length} cores`,
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
          `${name.padEnd(28)} ${String(u.status).padEnd(7)} ${int(accepted).padEnd(10)} ${int(u.body?.data?.rejected ?? 0).padEnd(9)} ` +
            `${u.seconds.toFixed(1).padEnd(8)} ${int(accepted / u.seconds).padEnd(9)} ${((accepted / u.seconds / ceiling) * 100).toFixed(0).padStart(3)}%` +
            `             ${r.startMb.toFixed(0)} -> ${r.peakMb.toFixed(0)} MB`,
        );
      }
      const rate = (fresh.result.body?.data?.accepted ?? 0) / fresh.result.seconds;
      lines.push(
        "",
        `ceiling: the same file COPYed (FORMAT csv) by one client into a table${DISTINCT >= ROWS ? " keyed by item_id" : ""}: ${int(ceiling)} rows/s`,
        `target: >= ${int(TARGET_ROWS_PER_S)} rows/s for new items: ${int(rate)} rows/s, ${rate >= TARGET_ROWS_PER_S ? "met" : "MISSED"}`,
        "",
      );
      process.stdout.write(lines.join("\n"));
    }),
  );
}

runBenchmark(main);
