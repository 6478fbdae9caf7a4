import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { EVENT_FAMILIES } from "../ingest/schemas.js";

const Count = z.number().int().min(0);
const PerSecond = z.number().min(0);

export const TotalsSchema = z
  .strictObject({
    items: Count.meta({ description: "Items stored and not deleted (active or inactive), now." }),
    items_active: Count.meta({ description: "Items with status active, now: the ones that can be recommended." }),
    users: Count.meta({ description: "Users stored and not deleted, now." }),
    events_total: Count.meta({ description: "Events received in [from, to) and still stored (retention drops older weeks)." }),
    events: z
      .array(
        z.strictObject({
          family: z.string().meta({ description: "An event family: exposure, engagement, conversion or system." }),
          counts: z.array(Count).meta({ description: "Events of the family received in each bucket (aligned with `buckets`)." }),
        }),
      )
      .meta({ description: "Every event family, each with its counts per bucket." }),
    ingestion: z
      .strictObject({
        last_minute_per_s: PerSecond.meta({ description: "Events received in the last 60 seconds, per second." }),
        last_hour_per_s: PerSecond.meta({ description: "Events received in the last hour, per second." }),
      })
      .meta({ description: "The organisation's ingestion rate, measured at the request." }),
  })
  .meta({ description: "With `granularity`: the organisation's totals (every scenario)." });
export type Totals = z.infer<typeof TotalsSchema>;

/**
 * Events received in [$2, $3) per bucket ($4 the first bucket's start in ms, $5 a bucket's width) and family.
 * `events` is partitioned by received_at, so only the weeks of the period are read.
 */
const EVENTS = `
SELECT floor((extract(epoch FROM received_at) * 1000 - $4::float8) / $5::float8)::int AS bucket, event_family AS family, count(*)::int AS n
FROM events WHERE org = $1 AND received_at >= $2 AND received_at < $3
GROUP BY 1, 2`;

/** The counted hours of [$2, $3) (analyticsCache.ts), by bucket as EVENTS. */
const COUNTED = `
SELECT floor((extract(epoch FROM hour) * 1000 - $4::float8) / $5::float8)::int AS bucket, family, sum(events)::int AS n
FROM analytics_event_hours WHERE org = $1 AND hour >= $2 AND hour < $3
GROUP BY 1, 2`;

const CATALOG = `
SELECT (SELECT count(*) FROM items WHERE org = $1 AND status <> 'deleted')::int AS items,
       (SELECT count(*) FROM items WHERE org = $1 AND status = 'active')::int AS items_active,
       (SELECT count(*) FROM users WHERE org = $1 AND status <> 'deleted')::int AS users`;

const INGESTION = `
SELECT (count(*) FILTER (WHERE received_at >= now() - interval '1 minute'))::int AS minute, count(*)::int AS hour
FROM events WHERE org = $1 AND received_at >= now() - interval '1 hour'`;

export interface TotalsQuery {
  from: Date;
  to: Date;
  /** bucketStarts() of the period (analyticsSeries.ts). */
  buckets: number[];
  stepMs: number;
  /** The whole days of the period already counted (analyticsCache.ts), read from there. */
  counted: { start: number; end: number } | undefined;
}

export async function organisationTotals(pool: pg.Pool, orgSeq: number, q: TotalsQuery): Promise<Totals> {
  type Row = { bucket: number; family: string; n: number };
  const bucketing = [q.buckets[0] ?? 0, q.stepMs];
  const live = (from: number, to: number) =>
    from < to ? query<Row>(pool, EVENTS, [orgSeq, new Date(from), new Date(to), ...bucketing]) : Promise.resolve([]);
  const [from, to] = [q.from.getTime(), q.to.getTime()];
  // One after the other: a call holds one connection of the pool here (and one for the series), whatever its period.
  const events = q.counted
    ? [
        ...(await live(from, q.counted.start)),
        ...(await query<Row>(pool, COUNTED, [orgSeq, new Date(q.counted.start), new Date(q.counted.end), ...bucketing])),
        ...(await live(q.counted.end, to)),
      ]
    : await live(from, to);
  const catalog = await query<{ items: number; items_active: number; users: number }>(pool, CATALOG, [orgSeq]);
  const ingestion = await query<{ minute: number; hour: number }>(pool, INGESTION, [orgSeq]);
  const n = q.buckets.length;
  const byFamily = new Map<string, number[]>(EVENT_FAMILIES.map((f) => [f, new Array<number>(n).fill(0)]));
  let total = 0;
  for (const r of events) {
    if (r.bucket < 0 || r.bucket >= n) continue; // cannot happen: received_at is within [from, to)
    const counts = byFamily.get(r.family) ?? byFamily.set(r.family, new Array<number>(n).fill(0)).get(r.family)!;
    counts[r.bucket]! += r.n;
    total += r.n;
  }
  const rate = ingestion[0]!;
  return {
    ...catalog[0]!,
    events_total: total,
    events: [...byFamily].map(([family, counts]) => ({ family, counts })),
    ingestion: { last_minute_per_s: round3(rate.minute / 60), last_hour_per_s: round3(rate.hour / 3600) },
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
