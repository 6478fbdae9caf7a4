import { AnalyticsQuerySchema, StrategyReportSchema } from "../../recommend/analytics.js";
import { DATABASE_ERRORS, type Operation } from "../operation.js";

export const ANALYTICS_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/analytics/strategies",
    operationId: "strategyReport",
    tag: "Analytics",
    summary: "Served, clicked and converted recommendations per strategy and scenario, over time with `granularity`",
    description:
      "Any role. Counts recommendations served in [from, to) (default: the last 30 days), for one `scenario` or all, and the events that carry their `recommendation_id`. " +
      "With `granularity` (`hour` for ranges under 3 days, `day` for ranges of at most 400 days) the answer adds `buckets` (the UTC start of every bucket from the one holding `from` to the one holding the period's end), " +
      "`series` aligned with them (per strategy and per scenario, a recommendation counted in the bucket it was served in with its later click or conversion; the 20 most served scenarios, the rest summed in `other_scenarios`) " +
      "and the organisation's `totals` (items, active items and users now, events received per bucket by family, the ingestion rate of the last minute and hour). " +
      "Counted from what is stored: the events of weeks past the retention are no longer counted.",
    auth: "bearer",
    query: AnalyticsQuerySchema,
    success: {
      kind: "envelope",
      status: 200,
      description:
        "One row per strategy served in the period, and one per scenario and strategy, most served first; with `granularity`, the buckets, series and the organisation's totals too.",
      message: "served recommendations, clicks and conversions per strategy",
      data: { name: "StrategyReport", schema: StrategyReportSchema },
      example: {
        from: "2025-02-01T00:00:00.000Z",
        to: "2025-02-04T00:00:00.000Z",
        strategies: [{ strategy: "personalized", served: 1200, clicks: 96, conversions: 12, click_through_rate: 0.08, conversion_rate: 0.01 }],
        scenarios: [
          { scenario: "home", strategy: "personalized", served: 1000, clicks: 90, conversions: 10, click_through_rate: 0.09, conversion_rate: 0.01 },
          { scenario: "email", strategy: "personalized", served: 200, clicks: 6, conversions: 2, click_through_rate: 0.03, conversion_rate: 0.01 },
        ],
        granularity: "day",
        buckets: ["2025-02-01T00:00:00.000Z", "2025-02-02T00:00:00.000Z", "2025-02-03T00:00:00.000Z"],
        series: {
          strategies: [{ strategy: "personalized", served: [400, 0, 800], clicks: [30, 0, 66], conversions: [4, 0, 8] }],
          scenarios: [
            { scenario: "home", served: [300, 0, 700], clicks: [27, 0, 63], conversions: [3, 0, 7] },
            { scenario: "email", served: [100, 0, 100], clicks: [3, 0, 3], conversions: [1, 0, 1] },
          ],
          other_scenarios: null,
        },
        totals: {
          items: 5200,
          items_active: 4800,
          users: 31000,
          events_total: 10450,
          events: [
            { family: "exposure", counts: [2000, 1500, 2600] },
            { family: "engagement", counts: [1200, 900, 1500] },
            { family: "conversion", counts: [100, 80, 140] },
            { family: "system", counts: [150, 120, 160] },
          ],
          ingestion: { last_minute_per_s: 0.4, last_hour_per_s: 0.25 },
        },
      },
    },
    errors: ["validation_error", "invalid_token", ...DATABASE_ERRORS],
  },
];
