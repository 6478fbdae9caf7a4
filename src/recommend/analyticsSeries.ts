import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { STRATEGIES, type Strategy } from "../wire/strategies.js";
import { Scenario } from "./schema.js";
import { servedIdRange } from "./servedIdRange.js";
import { servedOutcomesSql } from "./servedOutcomes.js";

export const GRANULARITIES = ["day", "hour"] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const GRANULARITY_MS: Record<Granularity, number> = { day: 86_400_000, hour: 3_600_000 };
/** `hour` is for ranges shorter than this (72 buckets at most), `day` for ranges of at most DAY_RANGE_MAX_MS (401 buckets). */
export const HOUR_RANGE_MAX_MS = 3 * 86_400_000;
export const DAY_RANGE_MAX_MS = 400 * 86_400_000;
/** Scenarios given their own series, the most served first; the others are summed in `other_scenarios`. */
export const SCENARIO_SERIES_MAX = 20;

const Counts = z.array(z.number().int().min(0));
const Outcomes = {
  served: Counts.meta({ description: "Recommendations served in each bucket." }),
  clicks: Counts.meta({
    description: "Of those, the ones followed by an engagement event of positive weight (whenever it came), in the bucket they were served in.",
  }),
  conversions: Counts.meta({ description: "Of those, the ones followed by a conversion event, in the bucket they were served in." }),
};

export const SeriesSchema = z
  .strictObject({
    strategies: z
      .array(z.strictObject({ strategy: z.enum(STRATEGIES), ...Outcomes }))
      .meta({ description: "Per strategy, every scenario together, most served first." }),
    scenarios: z
      .array(z.strictObject({ scenario: Scenario, ...Outcomes }))
      .meta({ description: `Per scenario, every strategy together: the ${SCENARIO_SERIES_MAX} most served.` }),
    other_scenarios: z
      .strictObject(Outcomes)
      .nullable()
      .meta({ description: `The scenarios past the ${SCENARIO_SERIES_MAX} most served, summed; null when there are none.` }),
  })
  .meta({ description: "With `granularity`: arrays aligned with `buckets`." });
export type Series = z.infer<typeof SeriesSchema>;

/** What a served recommendation led to, per bucket it was served in, scenario and strategy. */
export interface SeriesRow {
  bucket: number;
  scenario: string;
  strategy: Strategy;
  served: number;
  clicks: number;
  conversions: number;
}

/** The UTC-aligned starts (ms) of every bucket from the one holding `from` to the one holding the last instant before `to`. */
export function bucketStarts(from: Date, to: Date, granularity: Granularity): number[] {
  const step = GRANULARITY_MS[granularity];
  const starts: number[] = [];
  for (let b = Math.floor(from.getTime() / step) * step; b < to.getTime(); b += step) starts.push(b);
  return starts;
}

/** As the totals' report, by the bucket holding each row's served_at ($7 the first bucket's start in ms, $8 a bucket's width). */
const SERIES = servedOutcomesSql("floor((extract(epoch FROM served_at) * 1000 - $7::float8) / $8::float8)::int");

/** The counted days [$2, $3) (analyticsCache.ts), numbered from the first bucket's day $4. */
const COUNTED = `
SELECT (day - $4::date) AS bucket, scenario, strategy, served, clicks, conversions
FROM analytics_served_days WHERE org = $1 AND day >= $2::date AND day < $3::date AND ($5::text IS NULL OR scenario = $5)`;

export interface SeriesQuery {
  from: Date;
  to: Date;
  buckets: number[];
  granularity: Granularity;
  scenario: string | undefined;
  /** With `day`: the whole days of the period already counted (analyticsCache.ts), read from there. */
  counted: { start: number; end: number } | undefined;
}

export async function servedSeriesRows(pool: pg.Pool, orgSeq: number, q: SeriesQuery): Promise<SeriesRow[]> {
  const first = q.buckets[0] ?? 0;
  const live = (from: number, to: number) =>
    from < to
      ? query<SeriesRow>(pool, SERIES, [
          orgSeq,
          new Date(from),
          new Date(to),
          ...servedIdRange(new Date(from), new Date(to)),
          q.scenario ?? null,
          first,
          GRANULARITY_MS[q.granularity],
        ])
      : Promise.resolve([]);
  const [from, to] = [q.from.getTime(), q.to.getTime()];
  if (!q.counted || q.granularity !== "day") return live(from, to);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  // One after the other: a call holds one connection of the pool here (and one for the totals), whatever its period.
  const head = await live(from, q.counted.start);
  const kept = await query<SeriesRow>(pool, COUNTED, [orgSeq, day(q.counted.start), day(q.counted.end), day(first), q.scenario ?? null]);
  return [...head, ...kept, ...(await live(q.counted.end, to))];
}

type Outcome = { served: number[]; clicks: number[]; conversions: number[] };

/** The rows as arrays aligned with `n` buckets, per strategy and per scenario (the SCENARIO_SERIES_MAX most served, the rest summed). */
export function seriesOf(rows: readonly SeriesRow[], n: number): Series {
  const zeros = (): Outcome => ({
    served: new Array<number>(n).fill(0),
    clicks: new Array<number>(n).fill(0),
    conversions: new Array<number>(n).fill(0),
  });
  const add = (o: Outcome, r: SeriesRow) => {
    o.served[r.bucket]! += r.served;
    o.clicks[r.bucket]! += r.clicks;
    o.conversions[r.bucket]! += r.conversions;
  };
  const byStrategy = new Map<Strategy, Outcome>();
  const byScenario = new Map<string, Outcome>();
  for (const r of rows) {
    if (r.bucket < 0 || r.bucket >= n) continue; // cannot happen: served_at is within [from, to)
    add(byStrategy.get(r.strategy) ?? byStrategy.set(r.strategy, zeros()).get(r.strategy)!, r);
    add(byScenario.get(r.scenario) ?? byScenario.set(r.scenario, zeros()).get(r.scenario)!, r);
  }
  const total = (o: Outcome) => o.served.reduce((a, b) => a + b, 0);
  const strategies = [...byStrategy]
    .map(([strategy, o]) => ({ strategy, ...o }))
    .sort((a, b) => total(b) - total(a) || a.strategy.localeCompare(b.strategy));
  const ranked = [...byScenario]
    .map(([scenario, o]) => ({ scenario, ...o }))
    .sort((a, b) => total(b) - total(a) || (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0));
  const rest = ranked.slice(SCENARIO_SERIES_MAX);
  let other: Outcome | null = null;
  if (rest.length > 0) {
    other = zeros();
    for (const o of rest)
      for (let i = 0; i < n; i++) {
        other.served[i]! += o.served[i]!;
        other.clicks[i]! += o.clicks[i]!;
        other.conversions[i]! += o.conversions[i]!;
      }
  }
  return { strategies, scenarios: ranked.slice(0, SCENARIO_SERIES_MAX), other_scenarios: other };
}
