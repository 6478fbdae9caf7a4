import { z } from "zod";
import { ExperimentTagSchema } from "../experiments/schemas.js";
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
