import { z } from "zod";
import { isIdentifierList } from "../ingest/plainRecord.js";
import { Identifier, PROTO_KEY, USER_HASH_MAX } from "../ingest/schemas.js";
import { packIdList } from "../wire/idList.js";
import type { FilterValue as WireFilterValue, RankRequest } from "../wire/rank.js";
import { ITEM_STRATEGIES, STRATEGIES, USER_STRATEGIES, type Strategy } from "../wire/strategies.js";

/** `exclude_seen` defaults to true for these, false for the rest. */
const EXCLUDE_SEEN_BY_DEFAULT: ReadonlySet<Strategy> = new Set(["personalized", "because-you-viewed"]);

export const LIMIT_MAX = 100;
/** Deepest position a page may reach (page × limit): bounds the work of one request. */
export const DEPTH_MAX = 10_000;
export const FILTERS_MAX = 20;
const FILTER_VALUES_MAX = 100;
const EXCLUDE_MAX = 1_000;
const CONTEXT_ITEMS_MAX = 50;
export const CANDIDATES_MAX = 500;
const FIELDS_MAX = 100;
const MAX_PER_ATTRIBUTES_MAX = 5;
/**
 * Deepest position (page × limit) a request with `diversity` or `max_per` may reach: the re-ranking builds every
 * page before the one asked for, over candidates fetched past it (workers/strategies/diversify.ts).
 */
export const VARIETY_DEPTH_MAX = 1_000;

const Scalar = z.union([z.string().max(1024), z.number(), z.boolean()]);
const Range = z
  .strictObject({ min: z.number().optional(), max: z.number().optional() })
  .refine((r) => r.min !== undefined || r.max !== undefined, "a range needs min, max or both")
  .refine((r) => r.min === undefined || r.max === undefined || r.min <= r.max, "min must not exceed max");
/** One filter's value (also a rule's `items`: src/rules/schema.ts). */
export const FilterValue = z.union([Scalar, z.array(Scalar).min(1).max(FILTER_VALUES_MAX), Range]);
/** What one filter's value may be, as JSON Schema (the filters' own schema is written by hand: see below). */
export function filterValueSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(FilterValue, { io: "input" });
  return schema;
}

/** zod's record would drop a `__proto__` key silently (it copies key by key): refused first, as in attributes. */
const Filters = z
  .custom<object>((f) => typeof f !== "object" || f === null || !Object.hasOwn(f, PROTO_KEY), `must not use the key "${PROTO_KEY}"`)
  .pipe(z.record(z.string().min(1).max(256), FilterValue))
  .refine((f) => Object.keys(f).length <= FILTERS_MAX, `at most ${FILTERS_MAX} filters`)
  // The custom check first makes the JSON Schema of the input `{}`: say what it accepts.
  .meta({
    type: "object",
    maxProperties: FILTERS_MAX,
    additionalProperties: filterValueSchema(),
    description:
      "Attribute name → a value (equality), an array of values (any of) or `{min, max}` (numeric range, inclusive); several filters combine with AND.",
    examples: [{ brand: ["Acme", "Zenith"], price: { min: 10, max: 50 }, in_stock: true }],
  });

/** `max_per`: attribute name → at most that many results per value of it on a page. */
const MaxPer = z
  .custom<object>((m) => typeof m !== "object" || m === null || !Object.hasOwn(m, PROTO_KEY), `must not use the key "${PROTO_KEY}"`)
  .pipe(z.record(z.string().min(1).max(256), z.number().int("must be an integer").min(1, "must be 1 to 100").max(LIMIT_MAX, "must be 1 to 100")))
  .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= MAX_PER_ATTRIBUTES_MAX, `must name 1 to ${MAX_PER_ATTRIBUTES_MAX} attributes`)
  .meta({
    type: "object",
    minProperties: 1,
    maxProperties: MAX_PER_ATTRIBUTES_MAX,
    additionalProperties: { type: "integer", minimum: 1, maximum: LIMIT_MAX },
    description: `Attribute name → n: at most n results per value of that attribute on each page (an array attribute counts toward each of its values; items without the attribute are not limited). Up to ${MAX_PER_ATTRIBUTES_MAX} attributes. Further candidates fill the places a capped value leaves; when none within reach can, the results end there (a short last page): a cap is never exceeded. \`page × limit\` is at most ${VARIETY_DEPTH_MAX} with it.`,
    examples: [{ brand: 2 }],
  });

/** The wire's plain FilterValue (no zod on the recommender threads) must be exactly what this schema yields. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const filterValueAgrees: Same<z.infer<typeof FilterValue>, WireFilterValue> = true;
void filterValueAgrees;

/** CONTRACT, Recommend: the place on the site a recommendation is for; analytics split by it. */
export const SCENARIO_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const DEFAULT_SCENARIO = "default";
export const Scenario = z
  .string()
  .regex(SCENARIO_PATTERN, "must be 1 to 64 lowercase letters, digits, '-' or '_', starting with a letter or a digit")
  .meta({
    description: `The place on the site the recommendation is for (\`home\`, \`product-page\`, \`cart\`, …): stored with the served recommendation, and analytics split by it. Default \`${DEFAULT_SCENARIO}\`.`,
    examples: ["product-page"],
  });

/** `candidates` as the API states it: its type, its JSON Schema and every message about it come from here. */
const CandidateList = z
  .array(Identifier)
  .min(1)
  .max(CANDIDATES_MAX)
  .meta({
    description: `Only these items are ranked, by any strategy (with \`personalized\`, a personalized re-ranking of the caller's list); unknown or inactive ids are left out. At most ${CANDIDATES_MAX}.`,
  });
/**
 * CandidateList checked in one loop, and parsed id by id only when the loop refuses the list, for the messages:
 * zod's chain for each id was most of the front thread's time for a request of 500 (src/recommend/plainRecommend.ts
 * spares zod the whole body when the rest of it is plain too).
 */
const Candidates = z
  .custom<z.output<typeof CandidateList>>()
  .check((ctx) => {
    if (isIdentifierList(ctx.value, CANDIDATES_MAX)) return;
    // Run as zod runs an object's field: its issues as they are raw (whether each stops the body's superRefine
    // below included), for zod to word as the array's own. Synchronous: nothing in it is async.
    const parsed = CandidateList._zod.run({ value: ctx.value, issues: [] }, { async: false }) as z.core.ParsePayload;
    ctx.issues.push(...parsed.issues);
  })
  // The custom check makes the JSON Schema of the input `{}`: CandidateList's is what it accepts.
  .meta(candidateListSchema());

function candidateListSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(CandidateList, { io: "input" });
  return schema;
}

export const RecommendSchema = z
  .strictObject({
    strategy: z.enum(STRATEGIES, { message: `must be one of ${STRATEGIES.join(", ")}` }).default("personalized"),
    scenario: Scenario.default(DEFAULT_SCENARIO),
    user_id: Identifier.optional(),
    user_hash: z
      .string()
      .max(USER_HASH_MAX)
      .meta({
        description:
          "With identity verification on, a signed-in `user_id` (any id not starting `anon-`) needs its hash: hex HMAC-SHA256 of `user_id` with the organisation's identity secret, computed by the site's server.",
      })
      .optional(),
    context_item_id: Identifier.optional(),
    context_item_ids: z
      .array(Identifier)
      .min(1)
      .max(CONTEXT_ITEMS_MAX)
      .meta({
        description: `Instead of \`context_item_id\`, up to ${CONTEXT_ITEMS_MAX} items (a cart) for the item strategies: each candidate's scores against them are summed; the context items themselves are never returned.`,
      })
      .optional(),
    candidates: Candidates.optional(),
    diversity: z
      .number()
      .min(0, "must be 0 to 1")
      .max(1, "must be 0 to 1")
      .meta({
        description: `0 to 1 (default 0: the ranking as it is): how much relevance each page trades for variety. Each place on a page goes to the best of the next candidates by (1 − diversity) × relevance (its place in the ranking) − diversity × its greatest similarity to the page's items above it (maximal marginal relevance, over item vectors where the model has them and attributes otherwise). \`page × limit\` is at most ${VARIETY_DEPTH_MAX} with it.`,
        examples: [0.3],
      })
      .optional(),
    max_per: MaxPer.optional(),
    filters: Filters.optional(),
    item_type: Identifier.optional(),
    exclude_item_ids: z.array(Identifier).max(EXCLUDE_MAX).optional(),
    exclude_seen: z.boolean().optional(),
    fields: z.array(z.string().min(1).max(256)).max(FIELDS_MAX).optional(),
    limit: z.number().int("must be an integer").min(1, "must be 1 to 100").max(LIMIT_MAX, "must be 1 to 100").default(20),
    page: z.number().int("must be an integer").min(1, "must be 1 or more").default(1),
  })
  .superRefine((r, ctx) => {
    if (USER_STRATEGIES.has(r.strategy) && r.user_id === undefined) {
      ctx.addIssue({ code: "custom", path: ["user_id"], message: `is required for strategy ${r.strategy}` });
    }
    if (r.context_item_id !== undefined && r.context_item_ids !== undefined) {
      ctx.addIssue({ code: "custom", path: ["context_item_ids"], message: "must not be given with context_item_id" });
    } else if (ITEM_STRATEGIES.has(r.strategy) && r.context_item_id === undefined && r.context_item_ids === undefined) {
      ctx.addIssue({ code: "custom", path: ["context_item_id"], message: `is required for strategy ${r.strategy} (or context_item_ids)` });
    }
    if (r.page * r.limit > DEPTH_MAX) {
      ctx.addIssue({ code: "custom", path: ["page"], message: `page × limit must not exceed ${DEPTH_MAX}` });
    } else if ((r.diversity || r.max_per) && r.page * r.limit > VARIETY_DEPTH_MAX) {
      ctx.addIssue({ code: "custom", path: ["page"], message: `page × limit must not exceed ${VARIETY_DEPTH_MAX} with diversity or max_per` });
    }
    const filterType = r.filters?.item_type;
    if (filterType !== undefined && typeof filterType !== "string") {
      ctx.addIssue({ code: "custom", path: ["filters", "item_type"], message: "must be a string" });
    }
    if (r.item_type !== undefined && filterType !== undefined && filterType !== r.item_type) {
      ctx.addIssue({ code: "custom", path: ["item_type"], message: "contradicts filters.item_type" });
    }
  })
  .meta({
    description: `What to recommend. User strategies need \`user_id\`, item strategies \`context_item_id\`; page × limit is at most ${DEPTH_MAX}.`,
    examples: [{ strategy: "personalized", user_id: "u-77", limit: 10 }],
  });

export type RecommendBody = z.infer<typeof RecommendSchema>;

export function toRankRequest(org: number, b: RecommendBody): RankRequest {
  const filters = b.filters ? { ...b.filters } : undefined;
  const itemType = b.item_type ?? (filters?.item_type as string | undefined);
  if (filters) delete filters.item_type;
  return {
    org,
    strategy: b.strategy,
    userId: b.user_id,
    contextItemId: b.context_item_id ?? b.context_item_ids?.[0],
    contextItemIds: b.context_item_ids && b.context_item_ids.length > 1 ? b.context_item_ids : undefined,
    candidates: b.candidates && packIdList(b.candidates),
    diversity: b.diversity || undefined,
    maxPer: b.max_per,
    itemType,
    filters: filters && Object.keys(filters).length > 0 ? filters : undefined,
    excludeItemIds: b.exclude_item_ids,
    excludeSeen: b.exclude_seen ?? EXCLUDE_SEEN_BY_DEFAULT.has(b.strategy),
    fields: b.fields,
    limit: b.limit,
    page: b.page,
    scenario: b.scenario,
  };
}
