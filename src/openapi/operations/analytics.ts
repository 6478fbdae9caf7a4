import { AnalyticsQuerySchema, StrategyReportSchema } from "../../recommend/analytics.js";
import { DATABASE_ERRORS, type Operation } from "../operation.js";

export const ANALYTICS_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/analytics/strategies",
    operationId: "strategyReport",
    tag: "Analytics",
    summary: "Served, clicked and converted recommendations per strategy and scenario",
    description:
      "Any role. Counts recommendations served in [from, to) (default: the last 30 days), for one `scenario` or all, and the events that carry their `recommendation_id`.",
    auth: "bearer",
    query: AnalyticsQuerySchema,
    success: {
      kind: "envelope",
      status: 200,
      description: "One row per strategy served in the period, and one per scenario and strategy, most served first.",
      message: "served recommendations, clicks and conversions per strategy",
      data: { name: "StrategyReport", schema: StrategyReportSchema },
      example: {
        from: "2025-02-01T12:00:00.000Z",
        to: "2025-03-03T12:00:00.000Z",
        strategies: [{ strategy: "personalized", served: 1200, clicks: 96, conversions: 12, click_through_rate: 0.08, conversion_rate: 0.01 }],
        scenarios: [
          { scenario: "home", strategy: "personalized", served: 1000, clicks: 90, conversions: 10, click_through_rate: 0.09, conversion_rate: 0.01 },
          { scenario: "email", strategy: "personalized", served: 200, clicks: 6, conversions: 2, click_through_rate: 0.03, conversion_rate: 0.01 },
        ],
      },
    },
    errors: ["validation_error", "invalid_token", ...DATABASE_ERRORS],
  },
];
