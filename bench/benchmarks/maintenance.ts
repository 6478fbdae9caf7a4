/**
 * `npm run bench:maintenance`: ingest latency (single events at a fixed rate, paced client) while the service does
 * its upkeep on an organisation of `--prefill` events: partitions created (ensurePartitions), an expired week of
 * `--expired` rows dropped (applyRetention), index snapshots written every `--snapshot-every` seconds. The p99 in
 * each operation's window beside the windows where nothing ran, and one snapshot's bytes and WAL.
 * Flags: --rate R (events/s, 1,000) --duration S (60) --prefill N (2,000,000) --expired N (1,000,000)
 *        --snapshot-every S (20). Embedded PostgreSQL unless BENCH_DATABASE_URL is set.
 */
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { applyRetention, ensurePartitions } from "../../src/db/retention.js";
import { readFlags, WHOLE } from "../kit/flags.js";
import { call } from "../kit/api.js";
import { registerOrg, orgSeq } from "../kit/org.js";
import { withServer, type Running } from "../kit/processes.js";
import { writeFigures } from "../kit/results.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { pollUntil } from "../kit/poll.js";
import { logLines } from "../kit/serverLog.js";
import { connectionUrl, insertViews, prepareStorage, type Storage } from "../kit/storage.js";
import { int, ms, table } from "../kit/table.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import { startPaced, type Percentiles } from "./traffic/paced.js";
import { ViewEvents } from "./traffic/events.js";

const flags = readFlags({ rate: {}, duration: {}, prefill: {}, expired: {}, "snapshot-every": {} });
const RATE = flags.number("rate", 1000, { min: 1 });
const DURATION_S = flags.number("duration", 60, { min: 20 });
const PREFILL = flags.number("prefill", 2_000_000, { min: 0, integer: true });
const EXPIRED = flags.number("expired", 1_000_000, WHOLE);
const SNAPSHOT_EVERY_S = flags.number("snapshot-every", 20, WHOLE);
const USERS = 50_000;
const ITEMS = 100_000;
const DAY_MS = 86_400_000;
/** Requests scheduled this long after an operation ended still count in its window (a stall shows in those behind it). */
const AFTER_MS = 1_000;
/** A snapshot's window opens this long before its copying and writing: the batcher's hold and the steps' gaps. */
const SNAPSHOT_LEAD_MS = 1_000;

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const storage = await prepareStorage();
  const env = { LOG_LEVEL: "info", INDEX_SNAPSHOT_INTERVAL_S: String(SNAPSHOT_EVERY_S) };
  // The server stops its embedded PostgreSQL with it: nothing of ours stays connected across the restart.
  const prefilled = withServer(storage, env, async ({ url }) => {
    const org = await registerOrg(url);
    const filler = new pg.Client({ connectionString: connectionUrl(storage) });
    await filler.connect();
    const seq = await orgSeq(filler, org.orgId);
    log(`prefill: ${int(PREFILL)} views over ${int(USERS)} users and ${int(ITEMS)} items, written straight into events`);
    await insertViews(filler, seq, PREFILL, USERS, ITEMS);
    await filler.end();
    return { org, seq };
  });
  await prefilled
    .then(({ org, seq }) => {
      log("restarting the server on it (the load reads the prefill)");
      return withServer(storage, env, (s) => measure(s, storage, org, seq, startedAt), { timeoutMs: 30 * 60_000 });
    })
    .finally(() => storage.release());
}

/** The paced load on the prefilled organisation, with the upkeep run at set points of it, and the report. */
async function measure({ server, url: serverUrl }: Running, storage: Storage, org: { pk: string }, seq: number, startedAt: string): Promise<void> {
  const url = connectionUrl(storage);
  const db = new pg.Pool({ connectionString: url, max: 2 });
  // Before the run: a retention round's drop fences the snapshots of indexes that loaded the dropped week.
  const cost = await snapshotCost(db, serverUrl, org.pk, seq);
  log(`one snapshot: ${(cost.bytes / 1e6).toFixed(1)} MB, ${(cost.walBytes / 1e6).toFixed(1)} MB of WAL`);
  // Made after the start, whose retention round would drop it at once.
  const expiredWeek = await fillExpiredWeek(db, seq);
  log(`expired week ${expiredWeek}: ${int(EXPIRED)} rows`);

  const events = new ViewEvents(seededRandom(5), USERS, ITEMS);
  log(`paced ingest: ${RATE} single events/s for ${DURATION_S} s`);
  const run = await startPaced({
    url: `${serverUrl}/v1/events/ingest`,
    headers: { "content-type": "application/json", "x-api-key": org.pk },
    body: () => events.body(1),
    connections: 32,
    rate: RATE,
    durationS: DURATION_S,
    ours: { pid: server.proc.pid, dataDir: storage.dataDir },
  });
  const connect = () => new pg.Client({ connectionString: url });
  const windows: Array<{ what: string; fromMs: number; toMs: number; detail: string }> = [];
  const at = (fraction: number) => sleep(Math.max(0, run.startEpochMs + fraction * DURATION_S * 1000 - Date.now()));
  await at(0.3);
  let from = Date.now();
  const created = await ensurePartitions(connect, Date.now() + 40 * 7 * DAY_MS);
  windows.push({ what: "partitions created", fromMs: from, toMs: Date.now(), detail: created.join(", ") });
  await at(0.6);
  from = Date.now();
  const report = await applyRetention(connect, { retentionDays: 400, dedupDays: 7 });
  windows.push({ what: "expired partition dropped", fromMs: from, toMs: Date.now(), detail: report?.dropped.join(", ") ?? "skipped (locked)" });
  const result = (await run.done).result;
  // Every round the threads logged, those a drop fenced included (they copied and wrote as much).
  for (const l of logLines(server, "index snapshot")) {
    const end = Date.parse(l.t);
    if (end < run.startEpochMs) continue;
    const took = Number(l.writeMs) + Number(l.copyMs);
    // The round began with the batcher held and copied between requests: a second before its busy time, at most.
    windows.push({
      what: `index snapshot (${String(l.outcome)})`,
      fromMs: end - took - SNAPSHOT_LEAD_MS,
      toMs: end,
      detail: `${(Number(l.bytes) / 1e6).toFixed(1)} MB, copied in ${String(l.copyMs)} ms, written in ${String(l.writeMs)} ms`,
    });
  }

  const busy = windows.map((w) => [w.fromMs, w.toMs + AFTER_MS] as const);
  const quiet = quietWindows(run.startEpochMs, run.startEpochMs + DURATION_S * 1000, busy).map(([a, b]) => run.window(a, b));
  windows.sort((x, y) => x.fromMs - y.fromMs);
  const rowsOut = windows.map((w) => ({ ...w, ms: w.toMs - w.fromMs, p: run.window(w.fromMs, w.toMs + AFTER_MS) }));
  const figures = {
    startedAt,
    rate: RATE,
    durationS: DURATION_S,
    prefill: PREFILL,
    expired: EXPIRED,
    whole: result,
    windows: rowsOut,
    quiet,
    snapshot: cost,
  };
  const line = (what: string, took: string, p: Percentiles, detail: string) => [what, took, int(p.requests), ms(p.p50), ms(p.p99), ms(p.max), detail];
  console.log(
    `Ingest during upkeep — ${RATE} single events/s for ${DURATION_S} s (paced, 32 connections), organisation of ${int(PREFILL)} stored events; ` +
      `other work on the machine: ${result.otherCores.toFixed(2)} cores\n` +
      table(
        ["window", "took", "requests", "p50 ms", "p99 ms", "max ms", ""],
        [
          line("whole run", `${DURATION_S} s`, result, `${int(result.ok)} stored, ${result.non2xx} refused, ${result.errors} lost`),
          ...quiet.map((p, k) => line(`quiet ${k + 1}`, "", p, "nothing else running")),
          ...rowsOut.map((w) => line(w.what, `${int(w.ms)} ms`, w.p, w.detail)),
        ],
      ) +
      `\nOne index snapshot of the organisation: ${(cost.bytes / 1e6).toFixed(1)} MB stored, ${(cost.walBytes / 1e6).toFixed(1)} MB of WAL (one event sent, then the next snapshot round).`,
  );
  writeFigures("maintenance", startedAt, figures);
  await db.end();
}

/** A week received 500 days ago, partitioned as the service does it, filled with `EXPIRED` views. */
async function fillExpiredWeek(db: pg.Pool, org: number): Promise<string> {
  const at = new Date(Date.now() - 500 * DAY_MS);
  const { rows } = await db.query<{ name: string }>("SELECT ensure_events_partition($1) AS name", [at]);
  await db.query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
     SELECT $1, gen_random_uuid(), 'u' || (hashint4(g) % $3), 'i' || (hashint4(g + 7) % $4), 'engagement', 'view', 1, w, w
     FROM generate_series(1, $2) AS g, LATERAL (SELECT date_trunc('week', $5::timestamptz) + (g % 500000) * interval '1 second' AS w) t`,
    [org, EXPIRED, USERS, ITEMS, at],
  );
  return rows[0]!.name;
}

/** The stretches of [from, to) at least 3 s long that no busy window overlaps. */
function quietWindows(from: number, to: number, busy: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = [...busy].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  let at = from + 1_000; // the first second opens the connections
  for (const [a, b] of sorted) {
    if (a - at >= 3_000) out.push([at, a]);
    at = Math.max(at, b);
  }
  if (to - at >= 3_000) out.push([at, to]);
  return out;
}

/**
 * Bytes and WAL of one snapshot of the organisation with nothing else writing: one event makes it changed, and
 * the next round writes it.
 */
async function snapshotCost(db: pg.Pool, serverUrl: string, pk: string, org: number): Promise<{ bytes: number; walBytes: number }> {
  await sleep(2_000);
  const before = (
    await db.query<{ lsn: string; id: string }>(
      "SELECT pg_current_wal_lsn()::text AS lsn, coalesce(max(id), 0) AS id FROM org_index_snapshots WHERE org = $1",
      [org],
    )
  ).rows[0]!;
  const sent = await call(`${serverUrl}/v1/events/ingest`, { key: pk, body: new ViewEvents(seededRandom(9), USERS, ITEMS).body(1) });
  if (sent.status !== 202) throw new Error(`the event that starts a snapshot was refused: ${sent.status}`);
  const written = async () => {
    const { rows } = await db.query<{ bytes: string; wal: string }>(
      `SELECT bytes, pg_wal_lsn_diff(pg_current_wal_lsn(), $2::pg_lsn) AS wal FROM org_index_snapshots
       WHERE org = $1 AND id > $3 ORDER BY id DESC LIMIT 1`,
      [org, before.lsn, before.id],
    );
    return rows[0] && { bytes: Number(rows[0].bytes), walBytes: Number(rows[0].wal) };
  };
  return pollUntil(written, 500, 3 * SNAPSHOT_EVERY_S * 1000, () => "no snapshot was written after the last event");
}

runBenchmark(main);
