import type pg from "pg";
import { log } from "../wire/log.js";
import { sql as core } from "./migrations/001_core.js";
import { sql as catalog } from "./migrations/002_catalog.js";
import { sql as recommendations } from "./migrations/003_recommendations.js";
import { sql as statusTriggers } from "./migrations/004_status_triggers.js";
import { sql as leanAttribution } from "./migrations/005_lean_attribution.js";
import { sql as quietServedLogVacuum } from "./migrations/006_quiet_served_log_vacuum.js";
import { sql as ingestRefused } from "./migrations/007_ingest_refused.js";
import { sql as batchLog } from "./migrations/008_batch_log.js";
import { sql as rateLimitQuota } from "./migrations/009_rate_limit_quota.js";
import { sql as sharedModels } from "./migrations/010_shared_models.js";
import { sql as batchLogXid } from "./migrations/011_batch_log_xid.js";
import { sql as batchLogReaders } from "./migrations/012_batch_log_readers.js";
import { sql as orgQuotas } from "./migrations/013_org_quotas.js";
import { sql as accountSessions } from "./migrations/014_account_sessions.js";
import { sql as identityProtection } from "./migrations/015_identity_protection.js";
import { sql as accountsPerOrganisation } from "./migrations/016_accounts_per_organisation.js";
import { sql as erasures } from "./migrations/017_erasures.js";
import { sql as eventsPartitions } from "./migrations/018_events_partitions.js";
import { sql as indexSnapshots } from "./migrations/019_index_snapshots.js";
import { sql as servedScenario } from "./migrations/020_served_scenario.js";
import { sql as rules } from "./migrations/021_rules.js";
import { sql as experiments } from "./migrations/022_experiments.js";
import { sql as analyticsCache } from "./migrations/023_analytics_cache.js";
import { sql as brinAutosummarize } from "./migrations/024_brin_autosummarize.js";

/** Numbered, append-only: a migration once shipped is never edited, only followed by a new one. */
const MIGRATIONS: ReadonlyArray<{ id: number; name: string; sql: string }> = [
  { id: 1, name: "core", sql: core },
  { id: 2, name: "catalog", sql: catalog },
  { id: 3, name: "recommendations", sql: recommendations },
  { id: 4, name: "status triggers", sql: statusTriggers },
  { id: 5, name: "lean attribution", sql: leanAttribution },
  { id: 6, name: "quiet served log vacuum", sql: quietServedLogVacuum },
  { id: 7, name: "ingest refused", sql: ingestRefused },
  { id: 8, name: "batch log", sql: batchLog },
  { id: 9, name: "rate limit quota", sql: rateLimitQuota },
  { id: 10, name: "shared models", sql: sharedModels },
  { id: 11, name: "batch log xid", sql: batchLogXid },
  { id: 12, name: "batch log readers", sql: batchLogReaders },
  { id: 13, name: "org quotas", sql: orgQuotas },
  { id: 14, name: "account sessions", sql: accountSessions },
  { id: 15, name: "identity protection", sql: identityProtection },
  { id: 16, name: "accounts per organisation", sql: accountsPerOrganisation },
  { id: 17, name: "erasures", sql: erasures },
  { id: 18, name: "events partitions", sql: eventsPartitions },
  { id: 19, name: "index snapshots", sql: indexSnapshots },
  { id: 20, name: "served scenario", sql: servedScenario },
  { id: 21, name: "rules", sql: rules },
  { id: 22, name: "experiments", sql: experiments },
  { id: 23, name: "analytics_cache", sql: analyticsCache },
  { id: 24, name: "brin autosummarize", sql: brinAutosummarize },
];

/**
 * Applies pending migrations in order, each in its own transaction; safe when several processes start at once.
 * `through`: the last to apply (tests build a database as an older version left it).
 */
export async function migrate(pool: pg.Pool, through = Infinity): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(727274)");
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ id: number }>("SELECT id FROM schema_migrations");
    const applied = new Set(rows.map((r) => r.id));
    for (const m of MIGRATIONS) {
      if (applied.has(m.id) || m.id > through) continue;
      const started = performance.now();
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [m.id, m.name]);
        await client.query("COMMIT");
        // Some move every row of a big table (018 moves `events` into partitions): the log says what start-up waited for.
        log.info("applied migration", { id: m.id, name: m.name, ms: Math.round(performance.now() - started) });
      } catch (err) {
        await client.query("ROLLBACK");
        throw err;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(727274)").catch(() => undefined);
    client.release();
  }
}
