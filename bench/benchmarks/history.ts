/**
 * `npm run bench:history -- [--steps=5,20,50]` (issue 37): what a restart costs as an organisation's history grows.
 * One organisation of 100,000 items and 50,000 users (through the API), then events added by SQL up to each step
 * (in millions), spread over the last 365 days, into the weekly partitions (migration 018) with `event_ids` for the
 * dedup window. Per step:
 * 1. A start after the SQL load, its snapshots deleted (none can hold rows added behind the service's back), so it
 *    replays everything; then its first snapshot (INDEX_SNAPSHOT_INTERVAL_S=20): size, WAL, time; then a second
 *    one while single events are ingested: the ingest p50/p99 during it against before.
 * 2. A restart on the snapshot: spawn to /readyz 200, RSS at ready, when the first model is in place and RSS then,
 *    RSS a minute after ready, what was restored, and the sizes of `events` and of the snapshots' tables.
 * Embedded PostgreSQL unless BENCH_DATABASE_URL; run it under `nice -n 19` on a shared machine.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { call, sendInArrays, viewEvent } from "../kit/api.js";
import { readFlags, POSITIVE } from "../kit/flags.js";
import { connectionUrl, prepareStorage, type Storage } from "../kit/storage.js";
import { orgSeq, registerOrg } from "../kit/org.js";
import { startServer, stopChild, type Child } from "../kit/processes.js";
import { rssMb } from "../kit/proc.js";
import { logLines, waitForLog } from "../kit/serverLog.js";
import { int, percentile, table } from "../kit/table.js";
import { log } from "../kit/settings.js";
import { pollUntil } from "../kit/poll.js";
import { runBenchmark } from "../kit/run.js";
import { startEmbeddedDatabase } from "../../src/db/embedded.js";
import { setLogLevel } from "../../src/wire/log.js";

const ITEMS = 100_000;
const USERS = 50_000;
const CHUNK = 1_000_000;
const STEPS = readFlags({ steps: {} })
  .numbers("steps", "5,20,50", POSITIVE)
  .map((m) => Math.round(m * 1_000_000));
const METRICS_TOKEN = "bench-history-metrics-token";
const LOAD_TIMEOUT_MS = 60 * 60_000;
/** Ingest while the second snapshot is written: this many connections, each sending one event at a time. */
const INGEST_CONNECTIONS = 8;

async function start(storage: Storage, env: Record<string, string>): Promise<{ server: Child; url: string; readyS: number; readyAtMs: number }> {
  const started = performance.now();
  const { server, url } = await startServer(storage, { LOG_LEVEL: "info", METRICS_TOKEN, ...env }, LOAD_TIMEOUT_MS);
  await pollUntil(async () => ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 50);
  return { server, url, readyS: (performance.now() - started) / 1000, readyAtMs: Date.now() };
}

/** Adds events by SQL until the organisation holds `target`, arrivals spread over the last 365 days. */
async function loadEvents(db: pg.Pool, org: number, from: number, target: number): Promise<void> {
  await db.query("SELECT ensure_events_partition(now() - g * interval '7 days') FROM generate_series(0, 53) g");
  for (let at = from; at < target; at += CHUNK) {
    const n = Math.min(CHUNK, target - at);
    // Users uniform, items skewed (a cube of a uniform draw: the head is popular); one event in twenty a purchase.
    // Stored in time order, as a live stream stores them, so the partitions' BRIN index on received_at finds what is recent.
    await db.query(
      `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
       SELECT $1, gen_random_uuid(), 'user-' || (random() * ${USERS - 1})::int, 'item-' || floor(${ITEMS} * random() ^ 3)::int,
              CASE WHEN b THEN 'conversion' ELSE 'engagement' END, CASE WHEN b THEN 'purchase' ELSE 'view' END, CASE WHEN b THEN 4 ELSE 1 END, t, t
       FROM (SELECT now() - random() * interval '365 days' AS t, random() < 0.05 AS b FROM generate_series(1, $2::int) g) s ORDER BY t`,
      [org, n],
    );
    log(`  ${int(at + n)} events stored`);
  }
  await db.query(
    "INSERT INTO event_ids (org, event_id, day) SELECT org, event_id, events_day(received_at) FROM events WHERE org = $1 AND received_at >= now() - interval '8 days' ON CONFLICT DO NOTHING",
    [org],
  );
  // What autovacuum and autosummarize (migration 024) do to a year's history as it arrives, which a bulk load outruns.
  await db.query(
    `SELECT brin_summarize_new_values(i.indexrelid) FROM pg_partition_tree('events') t JOIN pg_index i ON i.indrelid = t.relid
     JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam WHERE t.isleaf AND a.amname = 'brin'`,
  );
  await db.query("ANALYZE events");
}

const mb = async (db: pg.Pool, sql: string): Promise<number> => Number((await db.query<{ b: string }>(sql)).rows[0]!.b) / 1024 / 1024;

/** Single events from INGEST_CONNECTIONS loops until `stop`; each request's start (epoch ms) and latency. */
async function ingest(url: string, pk: string, stop: () => boolean): Promise<Array<[number, number]>> {
  const out: Array<[number, number]> = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: INGEST_CONNECTIONS }, async () => {
      while (!stop()) {
        const body = viewEvent(`live-${n++ % 5000}`, `item-${n % 1000}`);
        const at = Date.now();
        const t = performance.now();
        const { status } = await call(`${url}/v1/events/ingest`, { key: pk, json: body });
        if (status !== 202) throw new Error(`ingest answered ${status}`);
        out.push([at, performance.now() - t]);
      }
    }),
  );
  return out;
}

function latency(samples: Array<[number, number]>, inside: (at: number) => boolean) {
  const xs = samples.filter(([at]) => inside(at)).map(([, ms]) => ms);
  return { n: xs.length, p50: percentile(xs, 0.5), p99: percentile(xs, 0.99) };
}

async function step(storage: Storage, db: pg.Pool, org: number, keys: { pk: string }, events: number) {
  // 1. Full load, then snapshots.
  await db.query("DELETE FROM org_index_snapshots");
  log(`  start after the SQL load (full replay)`);
  const full = await start(storage, { INDEX_SNAPSHOT_INTERVAL_S: "20" });
  const fullLoadS = full.readyS;
  log(`  ready in ${fullLoadS.toFixed(1)} s; waiting for the first snapshot`);
  const lsn0 = (await db.query<{ l: string }>("SELECT pg_current_wal_lsn()::text AS l")).rows[0]!.l;
  const first = await waitForLog(full.server, "index snapshot", (l) => l.org === org && l.outcome === "written", LOAD_TIMEOUT_MS);
  const wal = Number((await db.query<{ d: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS d", [lsn0])).rows[0]!.d);
  log(`  snapshot: ${int(Number(first.bytes))} bytes, copy ${first.copyMs} ms, write ${first.writeMs} ms, WAL ${int(wal)} bytes`);
  // The second round comes within 20 s and writes again (the ingest changes the index): latencies before it and during it.
  let stopping = false;
  const sampling = ingest(full.url, keys.pk, () => stopping);
  const second = await waitForLog(
    full.server,
    "index snapshot",
    (l) => l.org === org && l !== first && Date.parse(l.t) > Date.parse(first.t),
    5 * 60_000,
  );
  stopping = true;
  const samples = await sampling;
  const end = Date.parse(second.t);
  const begin = end - Number(second.writeMs) - Number(second.copyMs) - 100;
  const ingestDuring = latency(samples, (at) => at >= begin && at <= end);
  const ingestBefore = latency(samples, (at) => at < begin - 1000);
  log(`  ingest p99 ${ingestBefore.p99.toFixed(1)} ms before, ${ingestDuring.p99.toFixed(1)} ms during the second snapshot (${second.outcome})`);
  await stopChild(full.server);

  // 2. The restart this is about.
  const again = await start(storage, {});
  const rssReadyMb = rssMb(again.server.proc.pid);
  const loads = (await call(`${again.url}/metrics`, { token: METRICS_TOKEN })).text;
  const restored = [...loads.matchAll(/^recsvc_index_snapshot_loads_total\{result="(\w+)"\} (\d+)/gm)].map((m) => `${m[1]}=${m[2]}`).join(" ");
  for (const l of logLines(again.server, "recommender index loaded")) {
    const { t: _t, level: _level, msg: _msg, ...phases } = l;
    log(`  restart, ${JSON.stringify(phases)}`);
  }
  const built = logLines(again.server, "recommender index built").map((l) => `${int(Number(l.events))} events replayed in ${l.ms} ms`);
  log(`  restart: /readyz in ${again.readyS.toFixed(1)} s, RSS ${rssReadyMb.toFixed(0)} MB; ${restored}; ${built.join(", ")}`);
  // RSS a minute after ready, and once the first model after the restart is in place (trained, or another
  // process's loaded), whichever comes first.
  const minute = sleep(Math.max(0, again.readyAtMs + 60_000 - Date.now())).then(() => rssMb(again.server.proc.pid));
  const model = await waitForLog(again.server, ["recommender model trained", "recommender model loaded"], (l) => l.org === org, LOAD_TIMEOUT_MS);
  const modelS = again.readyS + (Date.parse(model.t) - again.readyAtMs) / 1000;
  const rssModelMb = rssMb(again.server.proc.pid);
  log(`  model in place ${modelS.toFixed(1)} s after the start (${model.msg}), RSS ${rssModelMb.toFixed(0)} MB`);
  const rssMinuteMb = await minute;
  await stopChild(again.server);
  return {
    events,
    fullLoadS,
    readyS: again.readyS,
    restored,
    rssReadyMb,
    modelS,
    rssModelMb,
    rssMinuteMb,
    eventsMb: await mb(db, "SELECT sum(pg_total_relation_size(relid)) AS b FROM pg_partition_tree('events')"),
    snapshotBytes: Number(first.bytes),
    snapshotWalBytes: wal,
    snapshotCopyMs: Number(first.copyMs),
    snapshotWriteMs: Number(first.writeMs),
    snapshotsMb: await mb(db, "SELECT pg_total_relation_size('org_index_snapshot_parts') + pg_total_relation_size('org_index_snapshots') AS b"),
    ingestBefore,
    ingestDuring,
  };
}

/** The figures so far (printed after every step: a long run stopped early still leaves its tables). */
function print(results: Awaited<ReturnType<typeof step>>[]): void {
  const base = results[0]!;
  console.log(
    table(
      "events | full load s | restart /readyz s | × first | RSS ready MB | model in place s | RSS then MB | RSS +1 min MB | × first | events MB | snapshot MB | WAL MB | copy ms | write ms | snapshot tables MB",
      results.map((r) => [
        int(r.events),
        r.fullLoadS.toFixed(1),
        r.readyS.toFixed(1),
        (r.readyS / base.readyS).toFixed(2),
        r.rssReadyMb.toFixed(0),
        r.modelS.toFixed(1),
        r.rssModelMb.toFixed(0),
        r.rssMinuteMb.toFixed(0),
        (r.rssMinuteMb / base.rssMinuteMb).toFixed(2),
        r.eventsMb.toFixed(0),
        (r.snapshotBytes / 1024 / 1024).toFixed(1),
        (r.snapshotWalBytes / 1024 / 1024).toFixed(1),
        String(r.snapshotCopyMs),
        String(r.snapshotWriteMs),
        r.snapshotsMb.toFixed(0),
      ]),
    ),
  );
  console.log(
    table(
      ["events", "ingest p50 before ms", "p99 before ms", "p50 during snapshot ms", "p99 during snapshot ms", "requests during", "restart loaded"],
      results.map((r) => [
        int(r.events),
        r.ingestBefore.p50.toFixed(1),
        r.ingestBefore.p99.toFixed(1),
        r.ingestDuring.p50.toFixed(1),
        r.ingestDuring.p99.toFixed(1),
        String(r.ingestDuring.n),
        r.restored,
      ]),
    ),
  );
}

async function main(): Promise<void> {
  const storage = await prepareStorage();
  // Embedded: started here, so that it outlives each server (a server stops the cluster it started); released at the end.
  setLogLevel("warn");
  if (storage.dataDir) await startEmbeddedDatabase(storage.dataDir);
  let db: pg.Pool | undefined;
  try {
    log(`setting up: ${int(ITEMS)} items and ${int(USERS)} users through the API`);
    const setup = await start(storage, { INDEX_SNAPSHOT_INTERVAL_S: "0" });
    const keys = await registerOrg(setup.url);
    db = new pg.Pool({ connectionString: connectionUrl(storage), max: 2 });
    const org = await orgSeq(db, keys.orgId);
    const upsert = (path: string, n: number, record: (k: number) => object) =>
      sendInArrays(
        `${setup.url}${path}`,
        keys.sk,
        Array.from({ length: n }, (_, k) => record(k)),
        { size: 1000, inFlight: 1 },
      );
    await upsert("/v1/items/upsert", ITEMS, (i) => ({
      item_id: `item-${i}`,
      item_type: "product",
      status: "active",
      attributes: { category: `c${i % 50}` },
    }));
    await upsert("/v1/users/upsert", USERS, (u) => ({ user_id: `user-${u}`, status: "active", created_at: "2025-01-01T00:00:00Z" }));
    await stopChild(setup.server);
    const results: Awaited<ReturnType<typeof step>>[] = [];
    let stored = 0;
    for (const target of STEPS) {
      log(`step: ${int(target)} events`);
      const loadStarted = performance.now();
      await loadEvents(db, org, stored, target);
      log(`  loaded by SQL in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s`);
      stored = target;
      results.push(await step(storage, db, org, keys, target));
      print(results);
    }
  } finally {
    await db?.end();
    await storage.release();
  }
}

runBenchmark(main);
