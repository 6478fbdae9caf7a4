import { RecommendAnswerSchema } from "../../recommend/answer.js";
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
];
