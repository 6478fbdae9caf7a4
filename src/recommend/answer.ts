import { z } from "zod";
import { ExperimentTagSchema } from "../experiments/schemas.js";
import type { Explanation } from "../wire/explanation.js";
import type { Mode } from "../wire/rank.js";
import { STRATEGIES } from "../wire/strategies.js";
import { LIMIT_MAX } from "./schema.js";

/**
 * The recommend answer's data. It is never built from these schemas: the shard renders `results` as bytes
 * (workers/strategies/page.ts) and src/http/routes/recommend.ts writes the envelope around them; these
 * describe what both write, for the API's description and the tests that check answers against it.
 */
export const ModeSchema = z.enum(["personalized", "contextual", "global", "fallback"]).meta({
  description: "How the page was ranked: by the strategy's own signal, or `fallback` (from `popular`) when it had none.",
});

/** The wire's plain Mode (the threads use no zod) must be exactly this schema's values. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const modeAgrees: Same<z.infer<typeof ModeSchema>, Mode> = true;
void modeAgrees;

export const RecommendResultSchema = z
  .strictObject({
    item_id: z.string(),
    score: z.number().meta({ description: "The strategy's score, rounded to 6 decimals; higher ranks first." }),
    reason: z.string().meta({
      description:
        "Why the item is here: `collaborative`, `similar-to:{item_id}`, `bought-with:{item_id}`, `viewed-with:{item_id}`, `recently-viewed`, `bought-before`, `popular`, `trending` or `new`.",
    }),
    metadata: z
      .looseObject({ item_type: z.string().nullable() })
      .meta({ description: "The item's attributes (or only those named in `fields`), plus its `item_type`." }),
  })
  .meta({ description: "One recommended item." });

export const RecommendAnswerSchema = z
  .strictObject({
    recommendation_id: z.uuid().meta({ description: "Send it back as events' `recommendation_id` to attribute clicks and conversions." }),
    tenant_id: z.uuid(),
    domain: z.string().meta({ description: "The item type the request was restricted to, else `all`." }),
    strategy: z.enum(STRATEGIES),
    mode: ModeSchema,
    results: z.array(RecommendResultSchema).max(LIMIT_MAX),
    recommended_items: z.array(z.string()).max(LIMIT_MAX).meta({ description: "The results' item ids, in order." }),
    pagination: z.strictObject({ page: z.number().int().min(1), limit: z.number().int().min(1).max(LIMIT_MAX), has_next: z.boolean() }),
    latency_ms: z.number().min(0),
    experiment: ExperimentTagSchema.optional(),
  })
  .meta({ description: "A page of recommendations." });
export type RecommendAnswer = z.infer<typeof RecommendAnswerSchema>;

const RuleRefSchema = z.strictObject({ name: z.string(), action: z.enum(["block", "boost", "bury", "pin", "promote"]) });

export const ExplanationSchema = z
  .strictObject({
    strategy: z.enum(STRATEGIES),
    model: z.string().meta({
      description:
        "What ranked: for `personalized` the organisation's model (`EASE`, `item-item co-occurrence`, `ALS vectors`, or none yet), else the strategy's own signal (`popularity`, `co-purchases …`).",
    }),
    mode: ModeSchema,
    catalog_items: z.number().int().min(0),
    eligible_items: z.number().int().min(0).meta({ description: "Items the request may return, after every reason in `removed`." }),
    removed: z.array(z.strictObject({ reason: z.string(), count: z.number().int().min(1), note: z.string().optional() })).meta({
      description:
        "Items each reason removed, in the order they are checked (an item counts under the first): `not_in_candidates`, `inactive`, `item_type`, `context_item`, `excluded`, `seen`, `filter:{attribute}`, `blocked:{rule}`. Reasons that removed nothing are left out.",
    }),
    emptied_by: z.string().nullable().meta({ description: "The reason after which no item was left (for example `filter:colour`), else null." }),
    candidates_considered: z.number().int().min(0).meta({ description: "Distinct items the strategy and its fallbacks checked while ranking." }),
    fallback: z.strictObject({
      reason: z
        .enum(["no_user", "unknown_user", "hidden_user", "unknown_context_item", "no_signal", "page_short"])
        .nullable()
        .meta({ description: "Why the fallbacks ranked some or all of the page; null when they did not." }),
      own_results: z.number().int().min(0).meta({ description: "Items the strategy itself scored above 0." }),
      wanted: z.number().int().min(0).meta({ description: "Items the page and what follows it needed." }),
      filled_by: z.array(z.enum(STRATEGIES)).meta({ description: "The fallbacks whose items are on the page, in order." }),
    }),
    rules: z.array(RuleRefSchema).meta({ description: "The rules that apply to this request (scenario, strategy, validity window), in order." }),
    results: z
      .array(
        z.strictObject({
          item_id: z.string(),
          source: z.string().meta({ description: "The strategy or fallback that placed it, or `rule` for an item a pin or promote brought in." }),
          score: z.number().nullable().meta({ description: "Its score from that strategy, before boost and bury; null for `rule`." }),
          position_before_rules: z
            .number()
            .int()
            .min(1)
            .nullable()
            .meta({ description: "1-based, in the same request's ranking without rules; null when that ranking did not hold it." }),
          rules: z.array(RuleRefSchema).meta({ description: "The rules that changed its score or placed it." }),
        }),
      )
      .max(LIMIT_MAX)
      .meta({ description: "One per result, in the page's order." }),
  })
  .meta({ description: "Why the page is what it is." });

/** The threads build the explanation without zod (src/wire/explanation.ts): the two must agree. */
const explanationAgrees: [z.infer<typeof ExplanationSchema>] extends [Explanation] ? true : false = true;
void explanationAgrees;

export const PreviewAnswerSchema = RecommendAnswerSchema.omit({ recommendation_id: true })
  .extend({
    scenario: z.string(),
    explanation: ExplanationSchema,
  })
  .meta({ description: "The page `/v1/recommend` would answer for the same body, not logged as served, and why." });
export type PreviewAnswer = z.infer<typeof PreviewAnswerSchema>;
