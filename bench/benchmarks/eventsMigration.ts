/**
 * `npm run bench:migration`: how long migration 018 (events into weekly partitions, docs/operations.md) takes on a
 * database as the version before it left it: BENCH_MIGRATION_EVENTS rows (default 3,000,000; 50,000 users, 100,000
 * items, arrivals over the last 365 days) written by SQL, then 018 applied: its time, per million rows, and the
 * table's size before and after. Embedded PostgreSQL in a temporary folder unless BENCH_DATABASE_URL.
 */
import pg from "pg";
import { startEmbeddedDatabase } from "../../src/db/embedded.js";
import { migrate } from "../../src/db/migrate.js";
import { setLogLevel } from "../../src/wire/log.js";
import { fromEnv, WHOLE } from "../kit/flags.js";
import { prepareStorage, serverVersion } from "../kit/storage.js";
import { log } from "../kit/settings.js";
import { runBenchmark } from "../kit/run.js";

const EVENTS = fromEnv.number("BENCH_MIGRATION_EVENTS", 3_000_000, WHOLE);
const CHUNK = 1_000_000;

const size = async (db: pg.Pool) =>
  (
    await db.query<{ s: string }>(
      "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS s FROM pg_class c WHERE c.relname LIKE 'event%' AND c.relkind IN ('r', 'p')",
    )
  ).rows[0]!.s;

async function main(): Promise<void> {
  setLogLevel("warn");
  // No server here (it would apply 018 at once): an embedded PostgreSQL of its own, stopped by the release.
  const storage = await prepareStorage();
  const url = storage.dataDir ? (await startEmbeddedDatabase(storage.dataDir)).url : storage.databaseUrl!;
  const db = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const version = await serverVersion(db);
    await migrate(db, 17);
    await db.query("INSERT INTO organisations (id, name) VALUES (gen_random_uuid(), 'migration bench')");
    log(`PostgreSQL ${version}: loading ${EVENTS.toLocaleString("en-US")} events by SQL`);
    const loadStarted = performance.now();
    for (let from = 0; from < EVENTS; from += CHUNK) {
      await db.query(
        `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
         SELECT 1, gen_random_uuid(), 'user-' || (random() * 50000)::int, 'item-' || (random() * 100000)::int,
                'engagement', 'view', 1, t, t
         FROM (SELECT now() - (g::float8 / $2) * interval '365 days' AS t FROM generate_series($1::int, $1::int + $3::int - 1) g) s`,
        [from, EVENTS, Math.min(CHUNK, EVENTS - from)],
      );
    }
    await db.query("VACUUM ANALYZE events");
    log(`loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s; events and its indexes: ${await size(db)}`);
    await db.query("CHECKPOINT");
    const started = performance.now();
    await migrate(db);
    const s = (performance.now() - started) / 1000;
    log(`migration 018: ${s.toFixed(1)} s for ${EVENTS.toLocaleString("en-US")} events, ${((s * 1e6) / EVENTS).toFixed(1)} s per million`);
    log(`after: events (all partitions) and event_ids with their indexes: ${await size(db)}`);
  } finally {
    await db.end();
    await storage.release();
  }
}

runBenchmark(main);
