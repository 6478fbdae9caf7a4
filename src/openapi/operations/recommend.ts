import { PreviewAnswerSchema, RecommendAnswerSchema } from "../../recommend/answer.js";
import { RecommendSchema } from "../../recommend/schema.js";
import { API_KEY_ERRORS, DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

export const RECOMMEND_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/recommend",
    operationId: "recommend",
    tag: "Recommendations",
    summary: "Recommend items",
    description:
      "Takes the publishable key (`svc_pk_…`); a secret key is 403 `wrong_key_type`. Ranks the organisation's active items by the strategy; " +
      "`mode` is `fallback` when the strategy had no signal and `popular` answered. Pages are stable. 503 `unavailable` while the index loads or when the recommender does not answer in time. " +
      "With identity verification on, a `user_id` not starting `anon-` needs its `user_hash` (403 `unverified_user`), whatever the strategy.",
    auth: "publishableKey",
    rateLimit: "key",
    body: { kind: "json", schema: { name: "RecommendRequest", schema: RecommendSchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "A page of recommendations.",
      message: "2 recommendations",
      data: { name: "RecommendAnswer", schema: RecommendAnswerSchema },
      example: {
        recommendation_id: EXAMPLE.recommendationId,
        tenant_id: EXAMPLE.orgId,
        domain: "all",
        strategy: "personalized",
        mode: "personalized",
        results: [
          { item_id: "sku-1042", score: 0.8125, reason: "collaborative", metadata: { brand: "Acme", price: 19.9, item_type: "product" } },
          { item_id: "sku-77", score: 0.5, reason: "collaborative", metadata: { brand: "Zenith", item_type: "product" } },
        ],
        recommended_items: ["sku-1042", "sku-77"],
        pagination: { page: 1, limit: 10, has_next: true },
        latency_ms: 0.412,
      },
    },
    errors: [...API_KEY_ERRORS, ...JSON_BODY_ERRORS, "unverified_user", ...DATABASE_ERRORS],
  },
  {
    method: "post",
    path: "/v1/recommend/preview",
    operationId: "previewRecommend",
    tag: "Recommendations",
    summary: "Preview a recommend request, with why each result is there",
    description:
      "Takes a dashboard token of any role. The body is the recommend body, validated the same way; the answer is the page `/v1/recommend` would give for it " +
      "(rules, controls and fallbacks alike), without `recommendation_id`: nothing is logged as served, so previews never count in analytics. " +
      "`explanation` says what ranked (the organisation's model), how many items each eligibility reason, filter and block rule removed and which one left none, " +
      "why the fallbacks ranked (unknown user, no signal, a short page) and, per result, its source, its score before boost and bury, its position before rules and the rules applied to it. " +
      "Explaining costs a second ranking when rules apply and a pass over the catalog: meant for the dashboard, not for traffic.",
    auth: "bearer",
    body: { kind: "json", schema: { name: "RecommendRequest", schema: RecommendSchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The page and its explanation.",
      message: "1 recommendations (preview)",
      data: { name: "PreviewAnswer", schema: PreviewAnswerSchema },
      example: {
        tenant_id: EXAMPLE.orgId,
        domain: "all",
        strategy: "personalized",
        scenario: "home",
        mode: "personalized",
        results: [{ item_id: "sku-42", score: 0.8125, reason: "pinned:Campaign third", metadata: { brand: "Acme", item_type: "product" } }],
        recommended_items: ["sku-42"],
        pagination: { page: 1, limit: 1, has_next: true },
        latency_ms: 3.5,
        explanation: {
          strategy: "personalized",
          model: "EASE",
          mode: "personalized",
          catalog_items: 1200,
          eligible_items: 1100,
          removed: [
            { reason: "inactive", count: 60 },
            { reason: "filter:brand", count: 40 },
          ],
          emptied_by: null,
          candidates_considered: 1100,
          fallback: { reason: null, own_results: 200, wanted: 200, filled_by: [] },
          rules: [{ name: "Campaign third", action: "pin" }],
          results: [
            {
              item_id: "sku-42",
              source: "personalized",
              score: 0.8125,
              position_before_rules: 7,
              rules: [{ name: "Campaign third", action: "pin" }],
            },
          ],
        },
      },
    },
    errors: ["invalid_token", ...JSON_BODY_ERRORS, ...DATABASE_ERRORS],
  },
];
