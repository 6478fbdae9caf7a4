import { z } from "zod";

/**
 * 1 to 256 characters, no control characters (CONTRACT 4), and no unpaired surrogate: PostgreSQL's text holds
 * only valid UTF-8, so such an id could not be stored as sent (it would become U+FFFD, merging distinct ids).
 * Characters are UTF-16 code units (`length`), as the contract counts them: zod's max() counts code points,
 * which let 256 emoji (512 units, 1,024 UTF-8 bytes) through.
 */
export const IDENTIFIER_MAX = 256;
// eslint-disable-next-line no-control-regex -- the control characters are what an identifier may not hold
export const IDENTIFIER_CHARS = /^(?:[^\u0000-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
export const Identifier = z
  .string()
  .min(1, "must not be empty")
  .regex(IDENTIFIER_CHARS, "must not contain control characters or unpaired surrogates")
  .refine((s) => s.length <= IDENTIFIER_MAX, `must be at most ${IDENTIFIER_MAX} characters`)
  // The refinement above is invisible to JSON Schema: its bound is stated for the API's description.
  .meta({ maxLength: IDENTIFIER_MAX, description: `1 to ${IDENTIFIER_MAX} characters (UTF-16 code units), no control characters.` });

export const MAX_FREEFORM_BYTES = 32 * 1024;
/** An escape JSON.stringify writes for NUL or an unpaired surrogate (paired ones stay raw), not preceded by an escaped backslash. */
const UNSTORABLE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/**
 * How deep a free-form value may nest. JSON.parse takes any depth, but JSON.stringify and msgpackr recurse:
 * a `context` nested a few thousand levels deep (a few kilobytes) overflows msgpackr's stack while the batch is
 * packed, outside any request, and ends the process.
 */
export const MAX_FREEFORM_DEPTH = 100;
/**
 * The one key refused in free-form values and filters: copying an object key by key (zod's record) drops it,
 * msgpackr renames it `__proto_`, and the index would lose it, so it could not be kept as sent anywhere.
 */
export const PROTO_KEY = "__proto__";

/** What a free-form value holds that it must not, or undefined; iterative, so safe at any depth. */
function shapeProblem(v: object): string | undefined {
  const stack: Array<[object, number]> = [[v, 1]];
  while (stack.length > 0) {
    const [x, depth] = stack.pop()!;
    for (const k in x) {
      if (k === PROTO_KEY) return `must not use the key "${PROTO_KEY}"`;
      const child = (x as Record<string, unknown>)[k];
      if (typeof child !== "object" || child === null) continue;
      if (depth + 1 > MAX_FREEFORM_DEPTH) return `must not nest objects and arrays more than ${MAX_FREEFORM_DEPTH} levels deep`;
      stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/** A JSON object as JSON.parse makes it (not an array, not null). */
const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `attributes` and `context`: free-form JSON objects of at most 32 KiB, checked in place (zod's record would
 * copy them key by key).
 */
const FreeForm = z
  .custom<Record<string, unknown>>(isJsonObject, "must be a JSON object")
  .superRefine((v, ctx) => {
    const problem = shapeProblem(v);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return;
    }
    const json = JSON.stringify(v);
    if (json.length > MAX_FREEFORM_BYTES / 3 && Buffer.byteLength(json) > MAX_FREEFORM_BYTES) {
      ctx.addIssue({ code: "custom", message: `must be at most ${MAX_FREEFORM_BYTES} bytes of JSON` });
    }
    // jsonb cannot hold NUL or a lone surrogate: refuse them here rather than fail a whole batch later.
    if (UNSTORABLE_ESCAPE.test(json)) {
      ctx.addIssue({ code: "custom", message: "must not contain NUL characters or unpaired surrogates" });
    }
  })
  // A custom check has no JSON Schema of its own: say what it accepts (any JSON value under any key).
  .meta({
    type: "object",
    additionalProperties: {},
    description: `Free-form JSON object, at most ${MAX_FREEFORM_BYTES} bytes of JSON and ${MAX_FREEFORM_DEPTH} levels deep.`,
  });

/** PostgreSQL reads UTC offsets up to ±15:59; beyond, it refused the batch (a 500) where zod saw a valid time. */
const OFFSET_BEYOND_POSTGRES = /[+-](?:1[6-9]|2\d):\d\d$/;
export const Timestamp = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" })
  .refine((t) => !t.startsWith("0000"), "must be in year 1 or later") // PostgreSQL has no year 0
  .refine((t) => !OFFSET_BEYOND_POSTGRES.test(t), "must have a UTC offset within ±15:59");
export const Status = z.enum(["active", "inactive", "deleted"]);

export const ItemSchema = z
  .strictObject({
    item_id: Identifier,
    item_type: Identifier,
    status: Status,
    attributes: FreeForm.optional(),
    created_at: Timestamp.optional(),
  })
  .meta({
    description: "A catalog item, created or replaced by its `item_id`. Only `active` items are recommended.",
    examples: [
      { item_id: "sku-1042", item_type: "product", status: "active", attributes: { brand: "Acme", price: 19.9 }, created_at: "2025-01-15T09:30:00Z" },
    ],
  });

export const UserSchema = z
  .strictObject({
    user_id: Identifier,
    status: Status,
    created_at: Timestamp,
    attributes: FreeForm.optional(),
  })
  .meta({
    description: "A user, created or replaced by its `user_id`.",
    examples: [{ user_id: "u-77", status: "active", created_at: "2025-01-02T08:00:00Z", attributes: { country: "NL" } }],
  });

/** A `user_hash` is 64 hex digits; longer text is refused before it is compared (a wrong one of any length is 403 unverified_user). */
export const USER_HASH_MAX = 128;

export const EVENT_FAMILIES = ["exposure", "engagement", "conversion", "system"] as const;

export const EVENT_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;
export const EventUuid = z.uuid({ message: "must be a UUID" });

export const EventSchema = z
  .strictObject({
    user_id: Identifier,
    event_family: z.enum(EVENT_FAMILIES),
    event_name: z.string().regex(EVENT_NAME, "must be lowercase: a letter, then up to 63 of a-z 0-9 _ . -"),
    previous_user_id: Identifier.optional(),
    user_hash: z
      .string()
      .max(USER_HASH_MAX)
      .meta({
        description:
          "With identity verification on, an `identify` of a signed-in `user_id` carries the user's hash: hex HMAC-SHA256 of `user_id` with the organisation's identity secret. Not stored.",
      })
      .optional(),
    item_id: Identifier.nullable().optional(),
    recommendation_id: Identifier.optional(),
    event_id: EventUuid.optional(),
    context: FreeForm.optional(),
    timestamp: Timestamp.refine((t) => Date.parse(t) <= Date.now() + FUTURE_SLACK_MS, "must not be more than 24 hours in the future").optional(),
  })
  .refine((e) => e.event_name !== "identify" || e.previous_user_id !== undefined, {
    message: "is required for identify events",
    path: ["previous_user_id"],
  })
  .meta({
    description: "Something a user did. `identify` events need `previous_user_id`; a repeated `event_id` is stored once.",
    examples: [
      { user_id: "u-77", event_family: "engagement", event_name: "view", item_id: "sku-1042", event_id: "0b6f1d2e-4c1a-4e7b-9a55-3f1e2d4c5b6a" },
    ],
  });

export type Item = z.infer<typeof ItemSchema>;
export type User = z.infer<typeof UserSchema>;
export type Event = z.infer<typeof EventSchema>;

/** Default weights of the known event names (CONTRACT 4); any other valid name weighs 1. */
export const EVENT_WEIGHTS: Readonly<Record<string, number>> = {
  impression: 0,
  list_view: 0,
  view: 1,
  click: 1,
  like: 2,
  rate: 2,
  share: 2,
  add_to_cart: 3,
  add_to_wishlist: 2,
  remove_from_cart: -1,
  dislike: -2,
  purchase: 5,
  subscribe: 5,
  checkout: 4,
  play_complete: 3,
  identify: 0,
  session_start: 0,
};

export function eventWeight(name: string): number {
  return EVENT_WEIGHTS[name] ?? 1;
}
