import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { ALL_ORGS, fenceSnapshotsNow } from "./snapshotFences.js";
import { forgetDays } from "../recommend/analyticsCache.js";
import { log } from "../wire/log.js";
import { Rounds } from "./rounds.js";

/** One process at a time does the work (CLUSTER=1 runs several on one database); the others skip that round. */
const RETENTION_LOCK = 727_020;
/** Weeks of partitions kept ready ahead of the current one. */
const WEEKS_AHEAD = 2;
const WEEK_MS = 7 * 86_400_000;
const DAY_MS = 86_400_000;
/** Heap blocks (8 KiB) one DELETE statement walks at most, and the pause after it: bounded work, low priority. */
const CHUNK_BLOCKS = 2048;
const CHUNK_PAUSE_MS = 20;

export interface RetentionSettings {
  /** EVENTS_RETENTION_DAYS: a week's partition is dropped once all of it was received longer ago than this. */
  retentionDays: number;
  /** EVENTS_DEDUP_DAYS: ids received within this many days are kept in `event_ids` (and one day more). */
  dedupDays: number;
}

export interface RetentionReport {
  created: string[];
  dropped: string[];
  idsDeleted: number;
  /** Organisations' rows deleted from partitions past their own retention, by partition. */
  purged: Array<{ org: number; partition: string; rows: number }>;
}

/** The partition of the week starting at `weekStartMs` (Monday 00:00 UTC), as migration 018 names it. */
export function partitionName(weekStartMs: number): string {
  return `events_w${new Date(weekStartMs).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** Monday 00:00 UTC of the week holding `ms` (as migration 018's events_week). */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY_MS);
  // 1970-01-01 was a Thursday: days since the Monday before it, modulo 7.
  return (day - ((day + 3) % 7)) * DAY_MS;
}

/** When the week of partition `name` started, or undefined for a name that is not one of ours. */
export function partitionWeek(name: string): number | undefined {
  const m = /^events_w(\d{4})(\d{2})(\d{2})$/.exec(name);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
}

/**
 * Retention of `events` (docs/operations.md): keeps the coming weeks' partitions ready, drops the weeks received
 * longer ago than the retention (DETACH … CONCURRENTLY, which never blocks the writers' COPY, then DROP), prunes
 * `event_ids` of the days past the dedup window, and deletes an organisation's rows from partitions past its own
 * shorter retention. Deletions walk the table in bounded chunks of blocks with a pause between them.
 */
export async function applyRetention(connect: () => pg.Client, settings: RetentionSettings, now = Date.now()): Promise<RetentionReport | undefined> {
  const c = connect();
  await c.connect();
  try {
    const { rows } = await c.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [RETENTION_LOCK]);
    if (!rows[0]!.locked) return undefined;
    const report: RetentionReport = { created: [], dropped: [], idsDeleted: 0, purged: [] };
    report.created = await createAhead(c, now);
    report.dropped = await dropExpired(c, now - settings.retentionDays * DAY_MS);
    report.idsDeleted = await pruneEventIds(c, now, settings.dedupDays);
    report.purged = await purgeOrganisations(c, now, settings.retentionDays);
    return report;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function createAhead(c: pg.Client, now: number): Promise<string[]> {
  const created: string[] = [];
  for (let week = 0; week <= WEEKS_AHEAD; week++) {
    const start = weekStart(now) + week * WEEK_MS;
    const exists = (await c.query<{ r: string | null }>("SELECT to_regclass($1) AS r", [partitionName(start)])).rows[0]!.r;
    if (exists !== null) continue;
    created.push((await c.query<{ name: string }>("SELECT ensure_events_partition($1) AS name", [new Date(start)])).rows[0]!.name);
  }
  return created;
}

/**
 * The current week's partition and the next ones exist once this resolves (the writers' COPY needs the one of
 * the moment): awaited at start, before ingestion opens.
 */
export async function ensurePartitions(connect: () => pg.Client, now = Date.now()): Promise<string[]> {
  const c = connect();
  await c.connect();
  try {
    return await createAhead(c, now);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Our partitions (attached, being detached, or detached and not yet dropped) with the week each starts. */
async function partitions(c: pg.Client): Promise<Array<{ name: string; week: number; attached: boolean; pending: boolean }>> {
  const { rows } = await c.query<{ name: string; attached: boolean; pending: boolean }>(
    `SELECT t.relname AS name, i.inhrelid IS NOT NULL AS attached, coalesce(i.inhdetachpending, false) AS pending
     FROM pg_class t LEFT JOIN pg_inherits i ON i.inhrelid = t.oid AND i.inhparent = 'events'::regclass
     WHERE t.relkind = 'r' AND t.relnamespace = 'public'::regnamespace AND t.relname LIKE 'events\\_w%'`,
  );
  return rows.flatMap((r) => {
    const week = partitionWeek(r.name);
    return week === undefined ? [] : [{ ...r, week }];
  });
}

async function dropExpired(c: pg.Client, horizon: number): Promise<string[]> {
  const dropped: string[] = [];
  for (const p of await partitions(c)) {
    if (p.week + WEEK_MS > horizon) continue;
    const table = c.escapeIdentifier(p.name);
    if (p.pending) await c.query(`ALTER TABLE events DETACH PARTITION ${table} FINALIZE`);
    else if (p.attached) await c.query(`ALTER TABLE events DETACH PARTITION ${table} CONCURRENTLY`);
    await c.query(`DROP TABLE ${table}`);
    await c.query("DELETE FROM events_org_purges WHERE partition = $1", [p.name]);
    // A restart holds only what is stored: snapshots from loads that read this week are not used again.
    await fenceSnapshotsNow(c, ALL_ORGS, "retention");
    // The analytics' counts of the days up to this week's end (a day more: a click names a recommendation served
    // before it) are counted again from what is left when read; the older ones went with the weeks before.
    await forgetDays(c, null, new Date(p.week + WEEK_MS + DAY_MS));
    dropped.push(p.name);
  }
  return dropped;
}

/** Deletes rows of `table` matching `condition` ($1 its one parameter) in chunks of blocks; how many. */
async function chunkedDelete(c: pg.Client, table: string, condition: string, value: number): Promise<number> {
  const blocks = Number(
    (await c.query<{ n: string }>("SELECT pg_relation_size($1::regclass) / current_setting('block_size')::int AS n", [table])).rows[0]!.n,
  );
  let deleted = 0;
  for (let from = 0; from < blocks; from += CHUNK_BLOCKS) {
    const r = await c.query(
      `DELETE FROM ${c.escapeIdentifier(table)} WHERE ctid >= '(${from},0)'::tid AND ctid < '(${from + CHUNK_BLOCKS},0)'::tid AND ${condition}`,
      [value],
    );
    deleted += r.rowCount ?? 0;
    await sleep(CHUNK_PAUSE_MS);
  }
  return deleted;
}

/**
 * Ids received before the dedup window and the day before it leave `event_ids` (so the window is always whole).
 * One pass over the table a day, whichever process makes it: the day it pruned up to is kept in `settings`.
 */
async function pruneEventIds(c: pg.Client, now: number, dedupDays: number): Promise<number> {
  const before = Math.floor(now / DAY_MS) - dedupDays - 1;
  const done = await c.query<{ value: string }>("SELECT value FROM settings WHERE name = 'event_ids_pruned_before'");
  if (done.rows.length > 0 && Number(done.rows[0]!.value) >= before) return 0;
  const deleted = await chunkedDelete(c, "event_ids", "day < $1", before);
  await c.query(`INSERT INTO settings (name, value) VALUES ('event_ids_pruned_before', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [
    String(before),
  ]);
  return deleted;
}

/**
 * An organisation whose own retention is shorter than the service's: its rows leave each partition received
 * wholly longer ago than its retention, once per partition (the other organisations' rows stay until the
 * partition is dropped).
 */
async function purgeOrganisations(c: pg.Client, now: number, retentionDays: number): Promise<RetentionReport["purged"]> {
  const { rows: orgs } = await c.query<{ org: number; days: number }>(
    "SELECT seq AS org, events_retention_days AS days FROM organisations WHERE events_retention_days < $1 ORDER BY seq",
    [retentionDays],
  );
  if (orgs.length === 0) return [];
  const attached = (await partitions(c)).filter((p) => p.attached && !p.pending);
  const done = new Set((await c.query<{ key: string }>("SELECT org || '/' || partition AS key FROM events_org_purges")).rows.map((r) => r.key));
  const purged: RetentionReport["purged"] = [];
  for (const { org, days } of orgs) {
    for (const p of attached) {
      if (p.week + WEEK_MS > now - days * DAY_MS || done.has(`${org}/${p.name}`)) continue;
      const rows = await chunkedDelete(c, p.name, "org = $1", org);
      await c.query("INSERT INTO events_org_purges (org, partition) VALUES ($1, $2) ON CONFLICT DO NOTHING", [org, p.name]);
      if (rows > 0) await forgetDays(c, org, new Date(p.week + WEEK_MS + DAY_MS));
      if (rows > 0) await fenceSnapshotsNow(c, org, "retention");
      purged.push({ org, partition: p.name, rows });
    }
  }
  return purged;
}

/** Creates the coming partitions at start (awaited), then runs applyRetention at once and every `intervalMs`. */
export class RetentionTask {
  private readonly rounds: Rounds;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly settings: RetentionSettings,
    intervalMs: number,
  ) {
    this.rounds = new Rounds("events retention", () => this.round(), intervalMs);
  }

  async start(): Promise<void> {
    await ensurePartitions(this.connect);
    this.rounds.start();
  }

  stop(): Promise<void> {
    return this.rounds.stop();
  }

  private async round(): Promise<void> {
    const started = performance.now();
    const report = await applyRetention(this.connect, this.settings);
    if (report === undefined) return;
    const changed = report.created.length + report.dropped.length + report.purged.length > 0 || report.idsDeleted > 0;
    if (changed) log.info("events retention", { ...report, ms: Math.round(performance.now() - started) });
  }
}
