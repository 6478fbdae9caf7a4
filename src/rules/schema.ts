import { z } from "zod";
import { Identifier, PROTO_KEY } from "../ingest/schemas.js";
import { FILTERS_MAX, FilterValue, filterValueSchema, Scenario } from "../recommend/schema.js";
import { RULE_ACTIONS, type RuleAction } from "../wire/rules.js";
import { STRATEGIES } from "../wire/strategies.js";

export const RULE_NAME_MAX = 100;
/** Ids a rule's `items.item_id` may list. */
export const RULE_ITEM_IDS_MAX = 500;
const RULE_SCENARIOS_MAX = 50;
/** A boost multiplies a score by at most this, a bury by at least its inverse. */
export const RULE_FACTOR_MAX = 100;
export const RULE_POSITION_MAX = 100;

const TIME_MESSAGE = "must be an ISO 8601 timestamp with a time zone";

/** The recommend request's filter grammar (src/recommend/schema.ts) plus `item_id`: which items a rule acts on. */
const RuleItems = z
  .custom<object>((f) => typeof f !== "object" || f === null || !Object.hasOwn(f, PROTO_KEY), `must not use the key "${PROTO_KEY}"`)
  .pipe(
    z
      .object({
        item_id: z.array(Identifier).min(1).max(RULE_ITEM_IDS_MAX, `at most ${RULE_ITEM_IDS_MAX} ids`).optional(),
        item_type: z.union([Identifier, z.array(Identifier).min(1).max(100)]).optional(),
      })
      .catchall(FilterValue),
  )
  .refine((f) => Object.keys(f).length >= 1, "must name at least one condition (item_id, item_type or an attribute)")
  .refine((f) => Object.keys(f).length <= FILTERS_MAX + 1, `at most ${FILTERS_MAX} attribute filters besides item_id`)
  .meta({
    type: "object",
    minProperties: 1,
    properties: {
      item_id: { type: "array", items: { type: "string" }, minItems: 1, maxItems: RULE_ITEM_IDS_MAX, description: "Any of these items." },
    },
    additionalProperties: filterValueSchema(),
    description:
      "Which items the rule acts on: the recommend request's `filters` grammar (attribute → a value, an array of values (any of) or `{min, max}`; `item_type` too), plus `item_id`, any of up to 500 ids. Conditions combine with AND.",
    examples: [{ brand: "Acme", in_stock: true }],
  });

const Timestamp = z.iso.datetime({ offset: true, message: TIME_MESSAGE });

/** A rule as POST /v1/rules and PUT /v1/rules/{rule_id} take it (PUT replaces the whole rule). */
export const RuleBodySchema = z
  .strictObject({
    name: z.string().trim().min(1, "must not be empty").max(RULE_NAME_MAX, `at most ${RULE_NAME_MAX} characters`),
    enabled: z.boolean(),
    action: z.enum(RULE_ACTIONS, { message: `must be one of ${RULE_ACTIONS.join(", ")}` }),
    items: RuleItems,
    scenarios: z
      .array(Scenario)
      .min(1)
      .max(RULE_SCENARIOS_MAX)
      .meta({ description: "Only recommend requests of these scenarios (default: every one)." })
      .optional(),
    strategies: z
      .array(z.enum(STRATEGIES, { message: `must be one of ${STRATEGIES.join(", ")}` }))
      .min(1)
      .max(STRATEGIES.length)
      .meta({ description: "Only recommend requests of these strategies (default: every one)." })
      .optional(),
    factor: z
      .number()
      .positive()
      .meta({
        description: `boost: more than 1, at most ${RULE_FACTOR_MAX}; bury: less than 1, at least 1/${RULE_FACTOR_MAX}. The item's score is multiplied by it.`,
      })
      .optional(),
    position: z
      .number()
      .int("must be an integer")
      .min(1, `must be 1 to ${RULE_POSITION_MAX}`)
      .max(RULE_POSITION_MAX, `must be 1 to ${RULE_POSITION_MAX}`)
      .meta({ description: "pin: the position (1 = first) the best matching item takes." })
      .optional(),
    share: z
      .number()
      .gt(0, "must be more than 0 and at most 1")
      .max(1, "must be more than 0 and at most 1")
      .meta({ description: "promote: the share of each page's slots given to the best matching items." })
      .optional(),
    starts_at: Timestamp.meta({ description: "The rule applies from this moment (default: at once)." }).optional(),
    ends_at: Timestamp.meta({ description: "The rule applies until this moment (default: for ever)." }).optional(),
  })
  .superRefine((r, ctx) => {
    const only = (field: "factor" | "position" | "share", actions: readonly RuleAction[]) => {
      if (r[field] === undefined && actions.includes(r.action))
        ctx.addIssue({ code: "custom", path: [field], message: `is required for action ${r.action}` });
      if (r[field] !== undefined && !actions.includes(r.action))
        ctx.addIssue({ code: "custom", path: [field], message: `is only for action ${actions.join(" or ")}` });
    };
    only("factor", ["boost", "bury"]);
    only("position", ["pin"]);
    only("share", ["promote"]);
    if (r.factor !== undefined && r.action === "boost" && !(r.factor > 1 && r.factor <= RULE_FACTOR_MAX)) {
      ctx.addIssue({ code: "custom", path: ["factor"], message: `must be more than 1 and at most ${RULE_FACTOR_MAX} for boost` });
    }
    if (r.factor !== undefined && r.action === "bury" && !(r.factor < 1 && r.factor >= 1 / RULE_FACTOR_MAX)) {
      ctx.addIssue({ code: "custom", path: ["factor"], message: `must be less than 1 and at least ${1 / RULE_FACTOR_MAX} for bury` });
    }
    if (r.starts_at !== undefined && r.ends_at !== undefined && Date.parse(r.ends_at) <= Date.parse(r.starts_at)) {
      ctx.addIssue({ code: "custom", path: ["ends_at"], message: "must be after starts_at" });
    }
  })
  .meta({
    description:
      "A merchandising rule: which items (`items`) it acts on, how (`action`), and where (`scenarios`, `strategies`) and when (`starts_at`, `ends_at`) it applies.",
    examples: [{ name: "Campaign third", enabled: true, action: "pin", items: { item_id: ["sku-42"] }, position: 3, scenarios: ["home"] }],
  });

export type RuleBody = z.infer<typeof RuleBodySchema>;

/** What a rule holds besides its name and enabled flag (stored as `rules.definition`). */
export type RuleDefinition = Omit<RuleBody, "name" | "enabled">;

export const RuleSchema = z
  .strictObject({
    rule_id: z.uuid(),
    name: z.string(),
    enabled: z.boolean(),
    action: z.enum(RULE_ACTIONS),
    items: z.record(z.string(), z.unknown()),
    scenarios: z.array(z.string()).optional(),
    strategies: z.array(z.enum(STRATEGIES)).optional(),
    factor: z.number().optional(),
    position: z.number().int().optional(),
    share: z.number().optional(),
    starts_at: z.iso.datetime({ offset: true }).optional(),
    ends_at: z.iso.datetime({ offset: true }).optional(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ description: "A stored rule." });
export type Rule = z.infer<typeof RuleSchema>;

export const RuleListSchema = z
  .strictObject({ rules: z.array(RuleSchema), max: z.number().int() })
  .meta({ description: "The organisation's rules, oldest first, and how many it may have." });

export const RuleIdSchema = z.uuid();
