import { z } from "zod";
import { RecommendSchema, Scenario } from "../recommend/schema.js";

export const VARIANTS_MIN = 2;
export const VARIANTS_MAX = 5;
/** Shares are decimals a person typed (0.333…): they must sum to 1 within this. */
export const SHARE_TOLERANCE = 1e-6;
/** At most half the traffic held out: the experiment is about the variants. */
export const HOLDOUT_MAX = 0.5;
/** The holdout's name in answers, served rows and results; no variant may take it. */
export const HOLDOUT = "holdout";

/**
 * Recommend fields that describe the request itself (who, where, which page, which items the caller offers),
 * not how it is ranked: a variant may not override them. Every other field of the recommend schema may be
 * overridden, so a field added to the schema (`diversity`, `max_per`, …) becomes a variant's field by itself.
 */
const PER_REQUEST = [
  "scenario",
  "user_id",
  "user_hash",
  "context_item_id",
  "context_item_ids",
  "candidates",
  "exclude_item_ids",
  "fields",
  "limit",
  "page",
] as const;

type RecommendShape = typeof RecommendSchema.shape;
type OverrideKey = Exclude<keyof RecommendShape, (typeof PER_REQUEST)[number]>;
/** A request field's own schema, without its default: in a variant, an absent field overrides nothing. */
type Bare<T> = T extends z.ZodDefault<infer I> ? I : T extends z.ZodOptional<infer I> ? I : T;
type OverrideShape = { [K in OverrideKey]: z.ZodOptional<Bare<RecommendShape[K]>> };

function bare(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) return bare(schema.unwrap() as z.ZodType);
  return schema;
}

const overrideShape = Object.fromEntries(
  Object.entries(RecommendSchema.shape)
    .filter(([key]) => !(PER_REQUEST as readonly string[]).includes(key))
    .map(([key, schema]) => [key, bare(schema as z.ZodType).optional()]),
) as OverrideShape;

/** The recommend fields a variant may set. */
export const OVERRIDE_FIELDS: readonly string[] = Object.keys(overrideShape);

const VariantName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,31}$/, "must be 1 to 32 letters, digits, spaces, '.', '_' or '-', starting with a letter or a digit")
  .refine((n) => n !== HOLDOUT, `'${HOLDOUT}' names the holdout`);

export const VariantSchema = z
  .strictObject({
    name: VariantName,
    share: z
      .number()
      .gt(0, "must be more than 0")
      .max(1, "must be at most 1")
      .meta({ description: "The variant's part of the traffic (not held out)." }),
    ...overrideShape,
  })
  .meta({
    description: `A variant: its name, its share of the traffic, and the recommend fields it overrides (${OVERRIDE_FIELDS.map((f) => `\`${f}\``).join(", ")}). The first variant is the control and overrides nothing.`,
  });
export type Variant = z.infer<typeof VariantSchema>;
/** What a variant overrides of a recommend request. */
export type Overrides = Partial<Pick<Variant, OverrideKey>>;

/** The variant's fields beyond its name and share. */
export function overridesOf(v: Variant): Overrides {
  const { name: _name, share: _share, ...rest } = v;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as Overrides;
}

export const CreateExperimentSchema = z
  .strictObject({
    name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
    scenario: Scenario,
    variants: z
      .array(VariantSchema)
      .min(VARIANTS_MIN, `needs ${VARIANTS_MIN} to ${VARIANTS_MAX} variants`)
      .max(VARIANTS_MAX, `needs ${VARIANTS_MIN} to ${VARIANTS_MAX} variants`),
    holdout: z
      .number()
      .min(0, "must be 0 to 0.5")
      .max(HOLDOUT_MAX, "must be 0 to 0.5")
      .default(0)
      .meta({
        description: `Part of all the scenario's users held out: they get the non-personalized \`popular\` and are reported as \`${HOLDOUT}\`. At most ${HOLDOUT_MAX}.`,
      }),
  })
  .superRefine((e, ctx) => {
    const sum = e.variants.reduce((s, v) => s + v.share, 0);
    if (Math.abs(sum - 1) > SHARE_TOLERANCE) {
      ctx.addIssue({ code: "custom", path: ["variants"], message: `shares must sum to 1 (they sum to ${Math.round(sum * 1e9) / 1e9})` });
    }
    const seen = new Set<string>();
    e.variants.forEach((v, i) => {
      if (seen.has(v.name)) ctx.addIssue({ code: "custom", path: ["variants", i, "name"], message: `'${v.name}' names two variants` });
      seen.add(v.name);
    });
    const control = e.variants[0];
    if (control) {
      for (const field of Object.keys(overridesOf(control))) {
        ctx.addIssue({ code: "custom", path: ["variants", 0, field], message: "the first variant is the control and overrides nothing" });
      }
    }
  })
  .meta({
    description:
      "An experiment on a scenario: each user of the scenario is assigned a variant (or the holdout) by a hash of the experiment and the user.",
    examples: [
      {
        name: "Personalized vs trending on the home page",
        scenario: "home",
        variants: [
          { name: "control", share: 0.5 },
          { name: "trending", share: 0.5, strategy: "trending" },
        ],
        holdout: 0.05,
      },
    ],
  });
export type CreateExperiment = z.infer<typeof CreateExperimentSchema>;

export const ExperimentSchema = z
  .strictObject({
    experiment_id: z.uuid(),
    name: z.string(),
    scenario: Scenario,
    status: z.enum(["running", "stopped"]),
    variants: z.array(VariantSchema),
    holdout: z.number().min(0).max(HOLDOUT_MAX),
    created_at: z.iso.datetime(),
    stopped_at: z.iso.datetime().nullable(),
  })
  .meta({ description: "An experiment." });
export type Experiment = z.infer<typeof ExperimentSchema>;

export const ExperimentListSchema = z.strictObject({ experiments: z.array(ExperimentSchema).meta({ description: "Newest first." }) });

export const ExperimentIdSchema = z.strictObject({ experiment_id: z.uuid() });

export const ExperimentTagSchema = z
  .strictObject({ id: z.uuid(), variant: z.string() })
  .meta({ description: `The running experiment of the request's scenario and the variant (or \`${HOLDOUT}\`) that shaped this answer.` });
