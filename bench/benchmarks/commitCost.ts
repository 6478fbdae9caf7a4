/**
 * `npm run bench:commit`: what one durable commit costs PostgreSQL, by rows per commit: one client COPYs `n` fresh
 * events into a table shaped like `events` (an autocommit COPY, as the writers send), back to back, and reads its
 * backend's CPU from /proc (so the database runs here: the embedded one by default). BENCH_DURATION_S: seconds per
 * size; BENCH_DATABASE_URL as for bench:ingest.
 */
import { connect, copyRows, createEventsLike, eventRows } from "./ingest/copyCeiling.js";
import { fromEnv, WHOLE } from "../kit/flags.js";
import { userSystemSeconds } from "../kit/proc.js";
import { connectionUrl } from "../kit/storage.js";
import { withFreshServer } from "../kit/processes.js";
import { int, table } from "../kit/table.js";
import { DURATION_S, log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const TABLE = "bench_commit_cost";
const SIZES = fromEnv.numbers("BENCH_COMMIT_ROWS", "1,10,40,100,1000", WHOLE); // rows per commit

async function measure(databaseUrl: string, rows: number) {
  const c = await connect(databaseUrl);
  try {
    const { rows: r } = await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const pid = r[0]!.pid;
    await copyRows(c, TABLE, eventRows(1, rows)); // warm the backend's caches
    let commits = 0;
    const before = userSystemSeconds(pid);
    const started = performance.now();
    while (performance.now() - started < DURATION_S * 1000) {
      await copyRows(c, TABLE, eventRows(1, rows));
      commits++;
    }
    const seconds = (performance.now() - started) / 1000;
    const after = userSystemSeconds(pid);
    const per = (s: number) => (s * 1e6) / commits;
    return {
      rows,
      commitsPerS: commits / seconds,
      wallUs: per(seconds),
      userUs: per(after.user - before.user),
      systemUs: per(after.system - before.system),
    };
  } finally {
    await c.end();
  }
}

function report(results: Awaited<ReturnType<typeof measure>>[]): string {
  const us = (x: number) => (Number.isFinite(x) ? int(x) : "n/a");
  const rows = results.map((r) => {
    const cpu = r.userUs + r.systemUs;
    return [int(r.rows), int(r.commitsPerS), us(r.wallUs), us(r.userUs), us(r.systemUs), us(cpu), (cpu / r.rows).toFixed(1)];
  });
  return `\nPostgreSQL cost of one durable commit (one client, one autocommit COPY of n new events, back to back)\n\n${table(
    ["rows/commit", "commits/s", "µs/commit", "backend user µs", "backend kernel µs", "backend CPU µs", "CPU µs/row"],
    rows,
  )}\n`;
}

async function main(): Promise<void> {
  // The server applies the migrations (the table copies `events`), then stays idle.
  await withFreshServer({}, async ({ storage }) => {
    const databaseUrl = connectionUrl(storage);
    const admin = await connect(databaseUrl);
    await createEventsLike(admin, TABLE);
    const results = [];
    for (const rows of SIZES) {
      log(`${rows} rows per commit: ${DURATION_S}s`);
      results.push(await measure(databaseUrl, rows));
    }
    await admin.query(`DROP TABLE ${TABLE}`);
    await admin.end();
    process.stdout.write(report(results));
  });
}

runBenchmark(main);
