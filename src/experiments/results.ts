import type pg from "pg";
import { z } from "zod";
import { query } from "../db/transaction.js";
import { readExperiment } from "./experiments.js";
import { HOLDOUT, type Experiment } from "./schemas.js";
import { compare, wilson, type Difference, type Proportion } from "./statistics.js";

const ProportionSchema = z
  .strictObject({ rate: z.number().min(0).max(1), low: z.number().min(0).max(1), high: z.number().min(0).max(1) })
  .meta({ description: "A rate with its 95 % Wilson score interval [low, high]." });

const DifferenceSchema = z
  .strictObject({
    difference: z.number().min(-1).max(1).meta({ description: "The variant's rate minus the control's." }),
    low: z.number().min(-1).max(1),
    high: z.number().min(-1).max(1),
    p_value: z.number().min(0).max(1).meta({ description: "Two-sided, of the two-proportion z-test with pooled variance." }),
    significant: z.boolean().meta({ description: "p_value < 0.05." }),
  })
  .meta({ description: "Against the control: the difference with its 95 % interval (Newcombe's hybrid score) and the z-test's p-value." });

const Count = z.number().int().min(0);

const VariantResultSchema = z.strictObject({
  variant: z.string().meta({ description: `The variant's name, or \`${HOLDOUT}\`.` }),
  control: z.boolean(),
  users: Count.meta({ description: "Distinct user ids served under the variant." }),
  served: Count.meta({ description: "Recommendations served under the variant." }),
  clicks: Count.meta({ description: "Served recommendations followed by at least one engagement event of positive weight carrying their id." }),
  conversions: Count.meta({ description: "Served recommendations followed by at least one conversion event carrying their id." }),
  users_clicked: Count,
  users_converted: Count,
  click_through: ProportionSchema.meta({ description: "clicks / served." }),
  conversion: ProportionSchema.meta({ description: "conversions / served." }),
  user_click_through: ProportionSchema.meta({ description: "users_clicked / users." }),
  user_conversion: ProportionSchema.meta({ description: "users_converted / users: the measure to decide on (the user is the unit assigned)." }),
  against_control: z
    .strictObject({
      click_through: DifferenceSchema,
      conversion: DifferenceSchema,
      user_click_through: DifferenceSchema,
      user_conversion: DifferenceSchema,
    })
    .nullable()
    .meta({ description: "Null for the control." }),
});

const DaySchema = z.strictObject({
  day: z.iso.date(),
  variant: z.string(),
  users: Count,
  served: Count,
  clicks: Count,
  conversions: Count,
  click_through_rate: z.number().min(0).max(1),
  conversion_rate: z.number().min(0).max(1),
});

export const ExperimentResultsSchema = z
  .strictObject({
    experiment_id: z.uuid(),
    name: z.string(),
    scenario: z.string(),
    status: z.enum(["running", "stopped"]),
    created_at: z.iso.datetime(),
    stopped_at: z.iso.datetime().nullable(),
    confidence: z.literal(0.95),
    test: z.string().meta({ description: "The statistics used, in words." }),
    variants: z
      .array(VariantResultSchema)
      .meta({ description: `The variants in their order (the control first), then \`${HOLDOUT}\` if the experiment holds users out.` }),
    daily: z.array(DaySchema).meta({ description: "Per UTC day served and variant, oldest first." }),
  })
  .meta({ description: "An experiment's results so far." });
export type ExperimentResults = z.infer<typeof ExperimentResultsSchema>;

export const TEST_WORDS =
  "rates with 95 % Wilson score intervals; against the control: the two-sided two-proportion z-test with pooled variance (p_value) and Newcombe's hybrid score interval of the difference";

interface Row {
  variant: string;
  day: string | null;
  users: number;
  served: number;
  clicks: number;
  conversions: number;
  users_clicked: number;
  users_converted: number;
}

/**
 * The experiment's served rows (found through the partial index on experiment_id), each with whether an event
 * carrying its id was a click or a conversion; counted per variant, and per variant and UTC day. An event
 * follows the answer it names: only events received since the experiment began (a day's slack for clocks).
 */
const RESULTS = `
WITH served AS (
  SELECT recommendation_id::text AS rid, variant, user_id, (served_at AT TIME ZONE 'UTC')::date AS day
  FROM served_recommendations WHERE org = $1 AND experiment_id = $2
), outcomes AS (
  SELECT recommendation_id AS rid,
         bool_or(event_family = 'engagement' AND weight > 0) AS clicked,
         bool_or(event_family = 'conversion') AS converted
  FROM events
  WHERE org = $1 AND recommendation_id IN (SELECT rid FROM served) AND received_at >= $3::timestamptz - interval '1 day'
  GROUP BY recommendation_id
)
SELECT s.variant, to_char(s.day, 'YYYY-MM-DD') AS day,
       count(DISTINCT s.user_id)::int AS users, count(*)::int AS served,
       (count(*) FILTER (WHERE o.clicked))::int AS clicks,
       (count(*) FILTER (WHERE o.converted))::int AS conversions,
       (count(DISTINCT s.user_id) FILTER (WHERE o.clicked))::int AS users_clicked,
       (count(DISTINCT s.user_id) FILTER (WHERE o.converted))::int AS users_converted
FROM served s LEFT JOIN outcomes o USING (rid)
GROUP BY GROUPING SETS ((s.variant), (s.variant, s.day))`;

const EMPTY: Omit<Row, "variant" | "day"> = { users: 0, served: 0, clicks: 0, conversions: 0, users_clicked: 0, users_converted: 0 };

export async function experimentResults(pool: pg.Pool, org: number, id: string): Promise<ExperimentResults> {
  const e = await readExperiment(pool, org, id);
  const rows = await query<Row>(pool, RESULTS, [org, e.experiment_id, e.created_at]);
  return summarise(e, rows);
}

function summarise(e: Experiment, rows: Row[]): ExperimentResults {
  const totals = new Map(rows.filter((r) => r.day === null).map((r) => [r.variant, r]));
  const names = [...e.variants.map((v) => v.name), ...(e.holdout > 0 ? [HOLDOUT] : [])];
  const control = { ...EMPTY, ...totals.get(names[0]!) };
  const variants = names.map((variant, i) => {
    const t = { ...EMPTY, ...totals.get(variant) };
    return {
      variant,
      control: i === 0,
      users: t.users,
      served: t.served,
      clicks: t.clicks,
      conversions: t.conversions,
      users_clicked: t.users_clicked,
      users_converted: t.users_converted,
      click_through: rounded(wilson(t.clicks, t.served)),
      conversion: rounded(wilson(t.conversions, t.served)),
      user_click_through: rounded(wilson(t.users_clicked, t.users)),
      user_conversion: rounded(wilson(t.users_converted, t.users)),
      against_control:
        i === 0
          ? null
          : {
              click_through: roundedDifference(compare(t.clicks, t.served, control.clicks, control.served)),
              conversion: roundedDifference(compare(t.conversions, t.served, control.conversions, control.served)),
              user_click_through: roundedDifference(compare(t.users_clicked, t.users, control.users_clicked, control.users)),
              user_conversion: roundedDifference(compare(t.users_converted, t.users, control.users_converted, control.users)),
            },
    };
  });
  const order = new Map(names.map((n, i) => [n, i]));
  const daily = rows
    .filter((r): r is Row & { day: string } => r.day !== null)
    .sort((a, b) => a.day.localeCompare(b.day) || (order.get(a.variant) ?? names.length) - (order.get(b.variant) ?? names.length))
    .map((r) => ({
      day: r.day,
      variant: r.variant,
      users: r.users,
      served: r.served,
      clicks: r.clicks,
      conversions: r.conversions,
      click_through_rate: round(r.served === 0 ? 0 : r.clicks / r.served),
      conversion_rate: round(r.served === 0 ? 0 : r.conversions / r.served),
    }));
  return {
    experiment_id: e.experiment_id,
    name: e.name,
    scenario: e.scenario,
    status: e.status,
    created_at: e.created_at,
    stopped_at: e.stopped_at,
    confidence: 0.95,
    test: TEST_WORDS,
    variants,
    daily,
  };
}

/** Six decimals: more is noise to a reader, and p-values below 1e-6 read as 0. */
function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function rounded(p: Proportion): Proportion {
  return { rate: round(p.rate), low: round(p.low), high: round(p.high) };
}

function roundedDifference(d: Difference): Difference {
  return { difference: round(d.difference), low: round(d.low), high: round(d.high), p_value: round(d.p_value), significant: d.significant };
}
