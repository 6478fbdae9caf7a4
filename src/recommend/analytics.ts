import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { STRATEGIES, type Strategy } from "../wire/strategies.js";
import {
  DAY_RANGE_MAX_MS,
  GRANULARITIES,
  GRANULARITY_MS,
  HOUR_RANGE_MAX_MS,
  SeriesSchema,
  bucketStarts,
  seriesOf,
  servedSeriesRows,
  type Granularity,
} from "./analyticsSeries.js";
import { fillDays, settledDays } from "./analyticsCache.js";
import { AnalyticsGate } from "./analyticsGate.js";
import { TotalsSchema, organisationTotals } from "./organisationTotals.js";
import { servedIdRange } from "./servedIdRange.js";
import { servedOutcomesSql } from "./servedOutcomes.js";

export { firstIdAt } from "./servedIdRange.js";
import { Scenario } from "./schema.js";

const DAY_MS = 86_400_000;
const DEFAULT_RANGE_MS = 30 * DAY_MS;
/** The process's analytics over time (analyticsGate.ts). */
const overTime = new AnalyticsGate();

export const AnalyticsQuerySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" }).optional(),
    to: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" }).optional(),
    scenario: Scenario.optional().meta({ description: "Only the recommendations served for this scenario." }),
    granularity: z.enum(GRANULARITIES).optional().meta({
      description: "Adds series per UTC bucket and the organisation's totals. `hour` for ranges under 3 days, `day` for ranges of at most 400 days.",
    }),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { message: "from must be before to", path: ["from"] })
  .superRefine((q, ctx) => {
    if (!q.granularity) return;
    const { from, to } = period(q);
    const span = to.getTime() - from.getTime();
    if (q.granularity === "hour" && span >= HOUR_RANGE_MAX_MS)
      ctx.addIssue({ code: "custom", path: ["granularity"], message: "hour is for ranges under 3 days: use day" });
    if (q.granularity === "day" && span > DAY_RANGE_MAX_MS)
      ctx.addIssue({ code: "custom", path: ["granularity"], message: "day is for ranges of at most 400 days" });
  });
export type AnalyticsQuery = z.infer<typeof AnalyticsQuerySchema>;

/** [from, to) of a query: to defaults to now, from to 30 days before to. */
function period(q: Pick<AnalyticsQuery, "from" | "to">): { from: Date; to: Date } {
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - DEFAULT_RANGE_MS);
  return { from, to };
}

const Rate = z.number().min(0).max(1);

const Outcomes = {
  served: z.number().int().min(0),
  clicks: z.number().int().min(0).meta({ description: "Served recommendations followed by at least one engagement event of positive weight." }),
  conversions: z.number().int().min(0).meta({ description: "Served recommendations followed by at least one conversion event." }),
  click_through_rate: Rate,
  conversion_rate: Rate,
};

export const StrategyReportSchema = z.strictObject({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  strategies: z.array(z.strictObject({ strategy: z.enum(STRATEGIES), ...Outcomes })).meta({ description: "Per strategy, every scenario together." }),
  scenarios: z
    .array(z.strictObject({ scenario: Scenario, strategy: z.enum(STRATEGIES), ...Outcomes }))
    .meta({ description: "Per scenario and strategy." }),
  granularity: z.enum(GRANULARITIES).optional().meta({ description: "With `granularity` in the query: the width of a bucket." }),
  buckets: z.array(z.iso.datetime()).optional().meta({
    description:
      "With `granularity`: the UTC start of every bucket from the one holding `from` to the one holding the end of the period, none skipped.",
  }),
  series: SeriesSchema.optional(),
  totals: TotalsSchema.optional(),
});
export type StrategyReport = z.infer<typeof StrategyReportSchema>;
type Counts = { served: number; clicks: number; conversions: number };

/**
 * Per scenario and strategy, over recommendations served in [from, to) (default: the last 30 days) for one
 * scenario or all ($6 null): how many were served, how many led to at least one engagement event (a click) and to
 * at least one conversion event, counting the events that carry their recommendation_id.
 */
const REPORT = `${servedOutcomesSql()} ORDER BY served DESC, s.scenario, s.strategy`;

export async function strategyReport(pool: pg.Pool, orgSeq: number, q: AnalyticsQuery): Promise<StrategyReport> {
  const { from, to } = period(q);
  if (q.granularity) {
    const granularity = q.granularity;
    return overTime.run(() => reportOverTime(pool, orgSeq, { from, to, granularity, scenario: q.scenario }));
  }
  const rows = await query<Counts & { scenario: string; strategy: Strategy }>(pool, REPORT, [
    orgSeq,
    from,
    to,
    ...servedIdRange(from, to),
    q.scenario ?? null,
  ]);
  return { from: from.toISOString(), to: to.toISOString(), ...totalsOf(rows) };
}

/**
 * With `granularity`: the served rows counted per bucket once, the period's totals summed from them, and the
 * organisation's totals read beside them on another connection (the answer waits for the slower, not the sum).
 */
async function reportOverTime(
  pool: pg.Pool,
  orgSeq: number,
  p: { from: Date; to: Date; granularity: Granularity; scenario: string | undefined },
): Promise<StrategyReport> {
  const buckets = bucketStarts(p.from, p.to, p.granularity);
  // Whole days that are over are counted once and read from what was counted (analyticsCache.ts); the rest is counted at each call.
  const counted = settledDays(p.from, p.to, Date.now());
  if (counted) await fillDays(pool, orgSeq, counted, { served: p.granularity === "day" });
  const [rows, totals] = await Promise.all([
    servedSeriesRows(pool, orgSeq, { ...p, buckets, counted }),
    organisationTotals(pool, orgSeq, { from: p.from, to: p.to, buckets, stepMs: GRANULARITY_MS[p.granularity], counted }),
  ]);
  const perScenario = new Map<string, Counts & { scenario: string; strategy: Strategy }>();
  for (const r of rows) {
    const key = `${r.strategy}\u0000${r.scenario}`;
    const sum = perScenario.get(key) ?? { scenario: r.scenario, strategy: r.strategy, served: 0, clicks: 0, conversions: 0 };
    perScenario.set(key, { ...sum, served: sum.served + r.served, clicks: sum.clicks + r.clicks, conversions: sum.conversions + r.conversions });
  }
  const scenarioRows = [...perScenario.values()].sort(
    (a, b) => b.served - a.served || compare(a.scenario, b.scenario) || compare(a.strategy, b.strategy),
  );
  return {
    from: p.from.toISOString(),
    to: p.to.toISOString(),
    ...totalsOf(scenarioRows),
    granularity: p.granularity,
    buckets: buckets.map((b) => new Date(b).toISOString()),
    series: seriesOf(rows, buckets.length),
    totals,
  };
}

/** The per-strategy and per-scenario rows of the period from its (scenario, strategy) counts, most served first. */
function totalsOf(rows: ReadonlyArray<Counts & { scenario: string; strategy: Strategy }>): Pick<StrategyReport, "strategies" | "scenarios"> {
  const byStrategy = new Map<Strategy, Counts>();
  for (const r of rows) {
    const sum = byStrategy.get(r.strategy) ?? { served: 0, clicks: 0, conversions: 0 };
    byStrategy.set(r.strategy, { served: sum.served + r.served, clicks: sum.clicks + r.clicks, conversions: sum.conversions + r.conversions });
  }
  const strategies = [...byStrategy]
    .map(([strategy, c]) => ({ strategy, ...withRates(c) }))
    .sort((a, b) => b.served - a.served || a.strategy.localeCompare(b.strategy));
  const scenarios = rows.map((r) => ({ scenario: r.scenario, strategy: r.strategy, ...withRates(r) }));
  return { strategies, scenarios };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function withRates(c: Counts): Counts & { click_through_rate: number; conversion_rate: number } {
  return {
    served: c.served,
    clicks: c.clicks,
    conversions: c.conversions,
    click_through_rate: rate(c.clicks, c.served),
    conversion_rate: rate(c.conversions, c.served),
  };
}

function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1e4) / 1e4;
}
