import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { STRATEGIES, type Strategy } from "../wire/strategies.js";

const DAY_MS = 86_400_000;

export const AnalyticsQuerySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" }).optional(),
    to: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" }).optional(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), { message: "from must be before to", path: ["from"] });
export type AnalyticsQuery = z.infer<typeof AnalyticsQuerySchema>;

const Rate = z.number().min(0).max(1);

export const StrategyReportSchema = z.strictObject({
  from: z.iso.datetime(),
  to: z.iso.datetime(),
  strategies: z.array(
    z.strictObject({
      strategy: z.enum(STRATEGIES),
      served: z.number().int().min(0),
      clicks: z.number().int().min(0).meta({ description: "Served recommendations followed by at least one engagement event of positive weight." }),
      conversions: z.number().int().min(0).meta({ description: "Served recommendations followed by at least one conversion event." }),
      click_through_rate: Rate,
      conversion_rate: Rate,
    }),
  ),
});
export type StrategyReport = z.infer<typeof StrategyReportSchema>;
export type StrategyFigures = StrategyReport["strategies"][number];

/**
 * Per strategy, over recommendations served in [from, to) (default: the last 30 days): how many were served,
 * how many led to at least one engagement event (a click) and to at least one conversion event, counting the
 * events that carry their recommendation_id.
 */
const REPORT = `
WITH served AS (
  SELECT recommendation_id::text AS rid, strategy FROM served_recommendations
  WHERE org = $1 AND served_at >= $2 AND served_at < $3
    AND recommendation_id >= $4::uuid AND recommendation_id < $5::uuid
), outcomes AS (
  SELECT recommendation_id AS rid,
         bool_or(event_family = 'engagement' AND weight > 0) AS clicked,
         bool_or(event_family = 'conversion') AS converted
  FROM events
  -- An event follows the answer it names: only the weeks' partitions received since the period began (a day's slack for clocks).
  WHERE org = $1 AND recommendation_id IN (SELECT rid FROM served) AND received_at >= $2::timestamptz - interval '1 day'
  GROUP BY recommendation_id
)
SELECT s.strategy, count(*)::int AS served,
       (count(*) FILTER (WHERE o.clicked))::int AS clicks,
       (count(*) FILTER (WHERE o.converted))::int AS conversions
FROM served s LEFT JOIN outcomes o USING (rid)
GROUP BY s.strategy ORDER BY served DESC, s.strategy`;

export async function strategyReport(pool: pg.Pool, orgSeq: number, q: AnalyticsQuery): Promise<StrategyReport> {
  const to = q.to ? new Date(q.to) : new Date();
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY_MS);
  const ids = [firstIdAt(from.getTime() - ID_TIME_SLACK_MS), firstIdAt(to.getTime() + ID_TIME_SLACK_MS)];
  const rows = await query<{ strategy: Strategy; served: number; clicks: number; conversions: number }>(pool, REPORT, [orgSeq, from, to, ...ids]);
  const strategies: StrategyFigures[] = rows.map((r) => ({
    ...r,
    click_through_rate: rate(r.clicks, r.served),
    conversion_rate: rate(r.conversions, r.served),
  }));
  return { from: from.toISOString(), to: to.toISOString(), strategies };
}

/**
 * Served rows are found through the primary key: a v7 recommendation_id leads with the milliseconds it was served
 * at (recommendationId.ts), taken moments before served_at, so an id range a second wider than [from, to)
 * holds every row in it, and served_at then decides exactly.
 */
const ID_TIME_SLACK_MS = 1_000;

/** The lowest v7 id of millisecond `ms`. */
export function firstIdAt(ms: number): string {
  const h = Math.max(0, Math.min(ms, 2 ** 48 - 1))
    .toString(16)
    .padStart(12, "0");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}

function rate(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1e4) / 1e4;
}
