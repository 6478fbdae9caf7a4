/**
 * `npm run bench:analytics` (issue 39): how long `GET /v1/analytics/strategies` with `granularity` takes on the
 * bench organisation's size. One organisation with 100,000 items (a tenth inactive, one in fifty deleted),
 * 50,000 users, `--served` recommendations served (default 1,000,000; 25 scenarios, the first ones most served,
 * five strategies) and `--events` events in all (default 5,000,000), both spread over the last 365 days and
 * written by SQL: a twelfth of the served recommendations clicked and one in sixty converted (events carrying
 * their `recommendation_id`, received within half an hour), the other events views, exposures, purchases and
 * system events with arrival times over the year, into the weekly partitions the service made (migration 018).
 *
 * Then, through the real server over HTTP with the OWNER's dashboard token, `--runs` calls (default 5, after one
 * first call reported apart) of each: the last 30 days by day, the last 2 days by hour, the last 400 days by day.
 * Prints p50 and max per case, and the answer's counts (a check that the load is what the call reads).
 *
 * BENCH_DATABASE_URL: a fresh database is made on that PostgreSQL (and dropped); unset: an embedded cluster.
 * `--database URL`: use that database as it is, loading the organisation only if it holds none yet (to time again
 * without loading again). Run it under `nice -n 19` on a shared machine. Loopback only; stops by itself.
 */
import pg from "pg";
import { call } from "../kit/api.js";
import { readFlags, WHOLE } from "../kit/flags.js";
import { orgSeq, registerOrg } from "../kit/org.js";
import { startServer, stopChild, type Child } from "../kit/processes.js";
import { writeFigures } from "../kit/results.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { connectionUrl, prepareStorage, type Storage } from "../kit/storage.js";
import { int, ms, percentile, table } from "../kit/table.js";

const flags = readFlags({ events: {}, served: {}, runs: {}, database: {} });
const EVENTS = flags.number("events", 5_000_000, WHOLE);
const SERVED = flags.number("served", 1_000_000, WHOLE);
const RUNS = flags.number("runs", 5, WHOLE);
const REUSE = flags.text("database");
const ITEMS = 100_000;
const USERS = 50_000;
const CHUNK = 500_000;
const DAY_MS = 86_400_000;
/** The marker of a loaded database (`--database`): the organisation's name. */
const ORG_NAME = "Analytics benchmark";

const CASES = [
  { name: "30 days by day", days: 30, granularity: "day" },
  { name: "2 days by hour", days: 2, granularity: "hour" },
  { name: "400 days by day", days: 400, granularity: "day" },
] as const;

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  let storage: Storage | undefined;
  let server: Child | undefined;
  let db: pg.Pool | undefined;
  try {
    storage = REUSE ? { databaseUrl: REUSE, release: async () => undefined } : await prepareStorage();
    // A reused database holds the organisation already: the recommender threads load it before the server listens.
    // No counting ahead (its organisation is created now, the history written behind it): the first call counts its period.
    const started = await startServer(storage, { LOG_LEVEL: "warn", ANALYTICS_PRECOUNT_S: "0" }, 30 * 60_000);
    server = started.server;
    db = new pg.Pool({ connectionString: connectionUrl(storage), max: 2 });
    const org = await organisation(db, started.url);
    const sizes = await db.query<{ events: string; served: string; attributed: string }>(
      `SELECT (SELECT count(*) FROM events WHERE org = $1) AS events, (SELECT count(*) FROM served_recommendations WHERE org = $1) AS served,
              (SELECT count(*) FROM events WHERE org = $1 AND recommendation_id IS NOT NULL) AS attributed`,
      [org.seq],
    );
    const size = sizes.rows[0]!;
    log(
      `organisation ${org.seq}: ${int(Number(size.events))} events (${int(Number(size.attributed))} naming a recommendation), ${int(Number(size.served))} served`,
    );

    const results = [];
    for (const c of CASES) {
      const to = new Date();
      const q = new URLSearchParams({
        from: new Date(to.getTime() - c.days * DAY_MS).toISOString(),
        to: to.toISOString(),
        granularity: c.granularity,
      });
      const times: number[] = [];
      let first = 0;
      let answer: Answer | undefined;
      for (let i = 0; i <= RUNS; i++) {
        const t = performance.now();
        const r = await call(`${started.url}/v1/analytics/strategies?${q.toString()}`, { token: org.token, timeoutMs: 120_000 });
        const took = performance.now() - t;
        if (r.status !== 200) throw new Error(`analytics answered ${r.status}: ${r.text.slice(0, 300)}`);
        answer = r.json.data as Answer;
        if (i === 0) first = took;
        else times.push(took);
      }
      const a = answer!;
      const served = a.strategies.reduce((s, x) => s + x.served, 0);
      const clicks = a.strategies.reduce((s, x) => s + x.clicks, 0);
      results.push({
        ...c,
        buckets: a.buckets.length,
        served,
        clicks,
        events: a.totals.events_total,
        first,
        p50: percentile(times, 0.5),
        max: Math.max(...times),
      });
      log(`${c.name}: p50 ${ms(percentile(times, 0.5))} ms`);
    }
    console.log(
      `GET /v1/analytics/strategies with granularity — one organisation of ${int(Number(size.events))} events and ${int(Number(size.served))} served recommendations ` +
        `over 365 days, ${int(ITEMS)} items, ${int(USERS)} users; ${RUNS} calls per case after a first one, over HTTP\n` +
        table(
          ["case", "buckets", "served", "clicks", "events", "first ms", "p50 ms", "max ms"],
          results.map((r) => [r.name, String(r.buckets), int(r.served), int(r.clicks), int(r.events), ms(r.first), ms(r.p50), ms(r.max)]),
        ),
    );
    writeFigures("analytics", startedAt, { startedAt, events: Number(size.events), served: Number(size.served), runs: RUNS, results });
  } finally {
    await db?.end().catch(() => undefined);
    await stopChild(server);
    await storage?.release();
  }
}

interface Answer {
  buckets: string[];
  strategies: Array<{ served: number; clicks: number }>;
  totals: { events_total: number };
}

/** The loaded organisation of a reused database, or a new one loaded now; its OWNER logged in. */
async function organisation(db: pg.Pool, url: string) {
  if (REUSE) {
    const { rows } = await db.query<{ seq: number; email: string }>(
      "SELECT o.seq, a.email FROM organisations o JOIN accounts a ON a.org_id = o.id WHERE o.name = $1 ORDER BY o.seq LIMIT 1",
      [ORG_NAME],
    );
    if (rows[0]) {
      const login = await call(`${url}/auth/login`, { json: { email: rows[0].email, password: "benchmark password" } });
      if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
      return { token: login.json.data.token as string, seq: rows[0].seq };
    }
  }
  const reg = await registerOrg(url);
  const seq = await orgSeq(db, reg.orgId);
  await db.query("UPDATE organisations SET name = $2 WHERE seq = $1", [seq, ORG_NAME]);
  await load(db, seq);
  return { token: reg.token, seq };
}

async function load(db: pg.Pool, org: number): Promise<void> {
  let t = performance.now();
  const took = () => {
    const s = ((performance.now() - t) / 1000).toFixed(1);
    t = performance.now();
    return s;
  };
  await db.query(
    `INSERT INTO items (org, item_id, item_type, status)
     SELECT $1, 'item-' || g, 'product', CASE WHEN g % 50 = 1 THEN 'deleted' WHEN g % 10 = 0 THEN 'inactive' ELSE 'active' END
     FROM generate_series(0, ${ITEMS - 1}) g`,
    [org],
  );
  await db.query(
    `INSERT INTO users (org, user_id, status, created_at) SELECT $1, 'user-' || g, 'active', now() FROM generate_series(0, ${USERS - 1}) g`,
    [org],
  );
  log(`${int(ITEMS)} items and ${int(USERS)} users stored (${took()} s)`);
  await db.query("SELECT ensure_events_partition(now() - g * interval '7 days') FROM generate_series(0, 53) g");
  // Drawn into unlogged tables first and stored in the order of time, as they arrive in service: each week's
  // partition then holds its rows by received_at, as the BRIN index on it expects.
  await db.query("CREATE UNLOGGED TABLE bench_served (LIKE served_recommendations INCLUDING DEFAULTS)");
  await db.query("CREATE UNLOGGED TABLE bench_events (LIKE events INCLUDING DEFAULTS)");

  for (let at = 0; at < SERVED; at += CHUNK) {
    const n = Math.min(CHUNK, SERVED - at);
    // The id is a v7 one of the millisecond served (as recommendationId.ts draws them: the analytics read an id
    // range); scenarios skewed (a square of a uniform draw), strategies one of five.
    await db.query(
      `INSERT INTO bench_served (org, recommendation_id, strategy, mode, user_id, items, served_at, scenario)
       SELECT $1, (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || '8' || substr(h, 4, 15))::uuid,
              (ARRAY['personalized', 'popular', 'similar', 'also-viewed', 'recently-viewed'])[1 + floor(5 * random() ^ 2)::int],
              'personalized', 'user-' || (random() * ${USERS - 1})::int, '["item-1","item-2","item-3"]', to_timestamp(ms / 1000.0),
              'scenario-' || lpad(floor(25 * random() ^ 2)::int::text, 2, '0')
       FROM (SELECT (extract(epoch FROM now() - random() * interval '365 days') * 1000)::bigint AS ms, md5(random()::text) AS h
             FROM generate_series(1, $2::int) g) s`,
      [org, n],
    );
    log(`  ${int(at + n)} served recommendations drawn (${took()} s)`);
  }
  const attributed = await db.query(
    `INSERT INTO bench_events (org, event_id, user_id, item_id, event_family, event_name, weight, recommendation_id, occurred_at, received_at)
     SELECT org, gen_random_uuid(), user_id, 'item-2', CASE WHEN c THEN 'conversion' ELSE 'engagement' END, CASE WHEN c THEN 'purchase' ELSE 'click' END,
            CASE WHEN c THEN 4 ELSE 1 END, recommendation_id::text, t, t
     FROM (SELECT org, user_id, recommendation_id, least(served_at + random() * interval '30 minutes', now()) AS t, random() AS r
           FROM bench_served WHERE org = $1) s,
          LATERAL (SELECT false AS c WHERE r < 1.0 / 12 UNION ALL SELECT true WHERE r < 1.0 / 60) k`,
    [org],
  );
  const attributedN = attributed.rowCount ?? 0;
  log(`${int(attributedN)} clicks and conversions drawn (${took()} s)`);
  const rest = Math.max(0, EVENTS - attributedN);
  for (let at = 0; at < rest; at += CHUNK) {
    const n = Math.min(CHUNK, rest - at);
    // Items skewed (a cube of a uniform draw); families: half views, a third exposures, 5 % purchases, the rest system.
    await db.query(
      `INSERT INTO bench_events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
       SELECT $1, gen_random_uuid(), 'user-' || (random() * ${USERS - 1})::int, 'item-' || floor(${ITEMS} * random() ^ 3)::int,
              f[1], f[2], f[3]::real, t, t
       FROM (SELECT now() - random() * interval '365 days' AS t, random() AS r FROM generate_series(1, $2::int) g) s,
            LATERAL (SELECT CASE WHEN r < 0.5 THEN ARRAY['engagement', 'view', '1'] WHEN r < 0.83 THEN ARRAY['exposure', 'impression', '0']
                                 WHEN r < 0.88 THEN ARRAY['conversion', 'purchase', '4'] ELSE ARRAY['system', 'identify', '0'] END AS f) k`,
      [org, n],
    );
    log(`  ${int(attributedN + at + n)} events drawn (${took()} s)`);
  }
  await db.query("INSERT INTO served_recommendations SELECT * FROM bench_served ORDER BY served_at");
  await db.query("INSERT INTO events SELECT * FROM bench_events ORDER BY received_at");
  await db.query("DROP TABLE bench_served, bench_events");
  log(`stored in the order of time (${took()} s)`);
  await db.query(
    "INSERT INTO event_ids (org, event_id, day) SELECT org, event_id, events_day(received_at) FROM events WHERE org = $1 AND received_at >= now() - interval '8 days' ON CONFLICT DO NOTHING",
    [org],
  );
  await db.query("VACUUM ANALYZE events");
  await db.query("VACUUM ANALYZE served_recommendations");
  await db.query("ANALYZE items");
  await db.query("ANALYZE users");
  log(`event ids of the dedup window stored, tables analysed (${took()} s)`);
}

runBenchmark(main);
