import { z } from "zod";

/** 1 to 256 characters, no control characters (CONTRACT 4). */
export const Identifier = z
  .string()
  .min(1, "must not be empty")
  .max(256, "must be at most 256 characters")
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters");

export const MAX_FREEFORM_BYTES = 32 * 1024;
/** An escape JSON.stringify writes for NUL or an unpaired surrogate (paired ones stay raw), not preceded by an escaped backslash. */
const UNSTORABLE_ESCAPE = /(?:^|[^\\])(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/** `attributes` and `context`: free-form JSON objects of at most 32 KiB. */
const FreeForm = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const json = JSON.stringify(v);
  if (json.length > MAX_FREEFORM_BYTES / 3 && Buffer.byteLength(json) > MAX_FREEFORM_BYTES) {
    ctx.addIssue({ code: "custom", message: `must be at most ${MAX_FREEFORM_BYTES} bytes of JSON` });
  }
  // jsonb cannot hold NUL or a lone surrogate: refuse them here rather than fail a whole batch later.
  if (UNSTORABLE_ESCAPE.test(json)) {
    ctx.addIssue({ code: "custom", message: "must not contain NUL characters or unpaired surrogates" });
  }
});

const Timestamp = z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" });
const Status = z.enum(["active", "inactive", "deleted"]);

export const ItemSchema = z.strictObject({
  item_id: Identifier,
  item_type: Identifier,
  status: Status,
  attributes: FreeForm.optional(),
  created_at: Timestamp.optional(),
});

export const UserSchema = z.strictObject({
  user_id: Identifier,
  status: Status,
  created_at: Timestamp,
  attributes: FreeForm.optional(),
});

export const EVENT_FAMILIES = ["exposure", "engagement", "conversion", "system"] as const;

const EventObjectSchema = z
  .strictObject({
    user_id: Identifier,
    event_family: z.enum(EVENT_FAMILIES),
    event_name: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, "must be lowercase: a letter, then up to 63 of a-z 0-9 _ . -"),
    previous_user_id: Identifier.optional(),
    item_id: Identifier.nullable().optional(),
    recommendation_id: Identifier.optional(),
    event_id: z.uuid({ message: "must be a UUID" }).optional(),
    context: FreeForm.optional(),
    timestamp: Timestamp.refine((t) => Date.parse(t) <= Date.now() + FUTURE_SLACK_MS, "must not be more than 24 hours in the future").optional(),
  })
  .refine((e) => e.event_name !== "identify" || e.previous_user_id !== undefined, {
    message: "is required for identify events",
    path: ["previous_user_id"],
  });

const EventUuid = z.uuid({ message: "must be a UUID" });

/**
 * The events endpoint runs zod once per event, on the front thread. Most events are plain (identifiers,
 * family, name, id; no context or timestamp), and for those a direct check decides the same as the schema in
 * a fraction of the time. The check only ever says "certainly valid"; anything else, and every event it is
 * unsure of (context, timestamp, unknown keys, any failing field), goes through the full schema above, which
 * stays the single statement of the rules and the source of every error message.
 */
const IDENTIFIER_OK = /^[^\u0000-\u001f\u007f-\u009f]*$/;
const EVENT_NAME_OK = /^[a-z][a-z0-9_.-]{0,63}$/;
const UUID_OK = EventUuid._zod.def.pattern ?? /$^/;
const FAMILIES: ReadonlySet<unknown> = new Set(EVENT_FAMILIES);

function isIdentifier(v: unknown): boolean {
  return typeof v === "string" && v.length >= 1 && v.length <= 256 && IDENTIFIER_OK.test(v);
}

function isPlainValidEvent(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  let hasPrevious = false;
  let name: unknown;
  let seen = 0;
  for (const key in v) {
    const value = (v as Record<string, unknown>)[key];
    switch (key) {
      case "user_id":
        if (!isIdentifier(value)) return false;
        break;
      case "event_family":
        if (!FAMILIES.has(value)) return false;
        break;
      case "event_name":
        if (typeof value !== "string" || !EVENT_NAME_OK.test(value)) return false;
        name = value;
        break;
      case "item_id":
        if (value !== null && !isIdentifier(value)) return false;
        break;
      case "event_id":
        if (typeof value !== "string" || !UUID_OK.test(value)) return false;
        break;
      case "previous_user_id":
        if (!isIdentifier(value)) return false;
        hasPrevious = true;
        break;
      case "recommendation_id":
        if (!isIdentifier(value)) return false;
        break;
      default:
        return false; // context, timestamp, unknown keys: the full schema decides
    }
    seen++;
  }
  // The three required fields, own and enumerable (for…in also walks inherited keys; JSON.parse makes none).
  if (seen !== Object.keys(v).length) return false;
  if (!Object.hasOwn(v, "user_id") || !Object.hasOwn(v, "event_family") || name === undefined) return false;
  return name !== "identify" || hasPrevious;
}

/** Answers success without running zod when isPlainValidEvent vouches for the event; otherwise runs zod. */
function withFastPath<S extends z.ZodType>(schema: S, vouch: (v: unknown) => boolean): S {
  const full = schema.safeParse.bind(schema);
  const fast = (data: unknown, params?: Parameters<S["safeParse"]>[1]) =>
    vouch(data) ? { success: true as const, data: data as z.output<S> } : full(data, params);
  Object.defineProperty(schema, "safeParse", { value: fast, writable: true, configurable: true });
  return schema;
}

export const EventSchema = withFastPath(EventObjectSchema, isPlainValidEvent);

export type Item = z.infer<typeof ItemSchema>;
export type User = z.infer<typeof UserSchema>;
export type Event = z.infer<typeof EventSchema>;

/** Default weights of the known event names (CONTRACT 4); any other valid name weighs 1. */
export const EVENT_WEIGHTS: Readonly<Record<string, number>> = {
  impression: 0, list_view: 0,
  view: 1, click: 1, like: 2, rate: 2, share: 2, add_to_cart: 3, add_to_wishlist: 2, remove_from_cart: -1, dislike: -2,
  purchase: 5, subscribe: 5, checkout: 4, play_complete: 3,
  identify: 0, session_start: 0,
};

export function eventWeight(name: string): number {
  return EVENT_WEIGHTS[name] ?? 1;
}
