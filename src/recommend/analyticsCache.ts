import type pg from "pg";
import { toAppError } from "../db/errors.js";
import { servedIdRange } from "./servedIdRange.js";

const DAY_MS = 86_400_000;
/**
 * A day is counted once it ended this long ago: a writer's COPY stamps `received_at` when its transaction began,
 * so rows of a day can still become visible a moment after it; and a served day's clicks are counted again when
 * an event naming one of its recommendations arrived since `served_as_of`, taken this long before the count.
 */
export const SETTLED_MS = 10 * 60_000;
/** Held by a fill (one at a time per organisation) and by what forgets the organisation's days (migration 023). */
const CACHE_LOCK = 727_030;
/** Stale served days up to this many are recounted looking up each recommendation's events; more, by one pass over the events naming one. */
const LOOKUP_DAYS_MAX = 7;

/** The whole days of [from, to) that are over (SETTLED_MS ago at `now`): [start, end) in ms, or undefined when there is none. */
export function settledDays(from: Date, to: Date, now: number): { start: number; end: number } | undefined {
  const start = Math.ceil(from.getTime() / DAY_MS) * DAY_MS;
  const end = Math.min(Math.floor(to.getTime() / DAY_MS) * DAY_MS, Math.floor((now - SETTLED_MS) / DAY_MS) * DAY_MS);
  return end > start ? { start, end } : undefined;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Counts the days of [start, end) not counted yet, and recounts the served days whose recommendations had an
 * event since they were counted, in one transaction holding the organisation's lock: what forgetDays deletes
 * after a deletion is never written back by a count that read before it.
 */
export async function fillDays(pool: pg.Pool, org: number, days: { start: number; end: number }, what: { served: boolean }): Promise<void> {
  let c: pg.PoolClient;
  try {
    c = await pool.connect();
  } catch (err) {
    throw toAppError(err);
  }
  try {
    await c.query("BEGIN");
    await c.query("SELECT pg_advisory_xact_lock($1, $2)", [CACHE_LOCK, org]);
    const { rows } = await c.query<{ day: string; events_counted: boolean; served_as_of: Date | null }>(
      "SELECT to_char(day, 'YYYY-MM-DD') AS day, events_counted, served_as_of FROM analytics_days WHERE org = $1 AND day >= $2 AND day < $3",
      [org, isoDay(days.start), isoDay(days.end)],
    );
    const known = new Map(rows.map((r) => [r.day, r]));
    const all: string[] = [];
    for (let d = days.start; d < days.end; d += DAY_MS) all.push(isoDay(d));
    const uncounted = all.filter((d) => !known.get(d)?.events_counted);
    if (uncounted.length > 0) await countEvents(c, org, uncounted);
    if (what.served) {
      const counted = all.filter((d) => known.get(d)?.served_as_of);
      const stale = new Set(all.filter((d) => !known.get(d)?.served_as_of));
      if (counted.length > 0) {
        const since = new Date(Math.min(...counted.map((d) => known.get(d)!.served_as_of!.getTime())));
        for (const d of await daysWithNewOutcomes(c, org, since, days)) if (known.get(d)?.served_as_of) stale.add(d);
      }
      if (stale.size > 0) await countServed(c, org, [...stale].sort());
    }
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw toAppError(err);
  } finally {
    c.release();
  }
}

/** Events received on `days` (ISO dates, ascending), per hour and family. */
async function countEvents(c: pg.ClientBase, org: number, days: string[]): Promise<void> {
  await c.query("DELETE FROM analytics_event_hours WHERE org = $1 AND (hour AT TIME ZONE 'UTC')::date = ANY($2::date[])", [org, days]);
  await c.query(
    `INSERT INTO analytics_event_hours (org, hour, family, events)
     SELECT $1, date_trunc('hour', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', event_family, count(*)
     FROM events
     WHERE org = $1 AND received_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND received_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
       AND (received_at AT TIME ZONE 'UTC')::date = ANY($4::date[])
     GROUP BY 2, 3`,
    [org, days[0], days.at(-1), days],
  );
  await c.query(
    `INSERT INTO analytics_days (org, day, events_counted) SELECT $1, d, true FROM unnest($2::date[]) d
     ON CONFLICT (org, day) DO UPDATE SET events_counted = true`,
    [org, days],
  );
}

/**
 * The days of [start, end) holding a recommendation named by an event received since `since`, read from the
 * v7 id's time (a row's served_at is less than a second after it: both days it may fall on).
 */
async function daysWithNewOutcomes(c: pg.ClientBase, org: number, since: Date, days: { start: number; end: number }): Promise<string[]> {
  const { rows } = await c.query<{ day: string }>(
    `SELECT DISTINCT to_char(d, 'YYYY-MM-DD') AS day
     FROM events, LATERAL (VALUES (recommendation_day(recommendation_id, 0)), (recommendation_day(recommendation_id, 1000))) v(d)
     WHERE org = $1 AND recommendation_id IS NOT NULL AND received_at >= $2 AND d >= $3::date AND d < $4::date`,
    [org, since, isoDay(days.start), isoDay(days.end)],
  );
  return rows.map((r) => r.day);
}

/**
 * The served recommendations of `days` (ISO dates, ascending) per scenario and strategy, with those that led to a
 * click or a conversion, as analytics.ts's REPORT counts them. Found through the primary key's id range (the v7
 * id leads with the millisecond served, a second at most before served_at).
 */
async function countServed(c: pg.ClientBase, org: number, days: string[]): Promise<void> {
  const lo = Date.parse(`${days[0]}T00:00:00Z`);
  const hi = Date.parse(`${days.at(-1)}T00:00:00Z`) + DAY_MS;
  const ids = servedIdRange(new Date(lo), new Date(hi));
  // A few days: each recommendation's events through the recommendation_id index. More: one pass over the events naming a recommendation since, joined by hash.
  const outcomes = days.length <= LOOKUP_DAYS_MAX ? "recommendation_id IN (SELECT rid FROM served)" : "recommendation_id IS NOT NULL";
  await c.query("DELETE FROM analytics_served_days WHERE org = $1 AND day = ANY($2::date[])", [org, days]);
  await c.query(
    `WITH served AS MATERIALIZED (
       SELECT recommendation_id::text AS rid, strategy, scenario, (served_at AT TIME ZONE 'UTC')::date AS day
       FROM served_recommendations
       WHERE org = $1 AND served_at >= $2 AND served_at < $3 AND recommendation_id >= $4::uuid AND recommendation_id < $5::uuid
         AND (served_at AT TIME ZONE 'UTC')::date = ANY($6::date[])
     ), outcomes AS (
       SELECT recommendation_id AS rid,
              bool_or(event_family = 'engagement' AND weight > 0) AS clicked,
              bool_or(event_family = 'conversion') AS converted
       FROM events
       WHERE org = $1 AND ${outcomes} AND received_at >= $2::timestamptz - interval '1 day'
       GROUP BY recommendation_id
     )
     INSERT INTO analytics_served_days (org, day, scenario, strategy, served, clicks, conversions)
     SELECT $1, s.day, s.scenario, s.strategy, count(*), count(*) FILTER (WHERE o.clicked), count(*) FILTER (WHERE o.converted)
     FROM served s LEFT JOIN outcomes o USING (rid)
     GROUP BY s.day, s.scenario, s.strategy`,
    [org, new Date(lo), new Date(hi), ...ids, days],
  );
  await c.query(
    `INSERT INTO analytics_days (org, day, served_as_of) SELECT $1, d, now() - make_interval(secs => $3) FROM unnest($2::date[]) d
     ON CONFLICT (org, day) DO UPDATE SET served_as_of = EXCLUDED.served_as_of`,
    [org, days, SETTLED_MS / 1000],
  );
}

/**
 * Forgets the counted days of one organisation (or of all: `org` null) before `before` (or all of them), after
 * their events or served recommendations were deleted; the next read counts them again from what is left. Waits
 * for a fill of the organisation under way, so that its counts, read before the deletion, are forgotten too.
 * Forgetting every organisation's days takes no lock: it follows a partition's drop, which waited for every
 * transaction reading that partition, fills included.
 */
export async function forgetDays(c: pg.ClientBase, org: number | null, before?: Date): Promise<void> {
  await c.query("BEGIN");
  try {
    if (org !== null) await c.query("SELECT pg_advisory_xact_lock($1, $2)", [CACHE_LOCK, org]);
    const day = before ? isoDay(before.getTime()) : null;
    const where = "($1::int IS NULL OR org = $1) AND ($2::date IS NULL OR day < $2)";
    await c.query(`DELETE FROM analytics_days WHERE ${where}`, [org, day]);
    await c.query(`DELETE FROM analytics_served_days WHERE ${where}`, [org, day]);
    await c.query(
      `DELETE FROM analytics_event_hours WHERE ($1::int IS NULL OR org = $1) AND ($2::date IS NULL OR hour < ($2::date)::timestamp AT TIME ZONE 'UTC')`,
      [org, day],
    );
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
