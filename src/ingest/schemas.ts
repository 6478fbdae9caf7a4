import { z } from "zod";

/**
 * 1 to 256 characters, no control characters (CONTRACT 4), and no unpaired surrogate: PostgreSQL's text holds
 * only valid UTF-8, so such an id could not be stored as sent (it would become U+FFFD, merging distinct ids).
 */
export const IDENTIFIER_MAX = 256;
export const IDENTIFIER_CHARS = /^(?:[^\u0000-\u001f\u007f-\u009f\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/;
export const Identifier = z
  .string()
  .min(1, "must not be empty")
  .max(IDENTIFIER_MAX, `must be at most ${IDENTIFIER_MAX} characters`)
  .regex(IDENTIFIER_CHARS, "must not contain control characters or unpaired surrogates");

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

export const Timestamp = z.iso
  .datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" })
  .refine((t) => !t.startsWith("0000"), "must be in year 1 or later"); // PostgreSQL has no year 0
export const Status = z.enum(["active", "inactive", "deleted"]);

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

export const EVENT_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;
export const EventUuid = z.uuid({ message: "must be a UUID" });

export const EventSchema = z
  .strictObject({
    user_id: Identifier,
    event_family: z.enum(EVENT_FAMILIES),
    event_name: z.string().regex(EVENT_NAME, "must be lowercase: a letter, then up to 63 of a-z 0-9 _ . -"),
    previous_user_id: Identifier.optional(),
    item_id: Identifier.nullable().optional(),
    recommendation_id: Identifier.optional(),
    event_id: EventUuid.optional(),
    context: FreeForm.optional(),
    timestamp: Timestamp.refine((t) => Date.parse(t) <= Date.now() + FUTURE_SLACK_MS, "must not be more than 24 hours in the future").optional(),
  })
  .refine((e) => e.event_name !== "identify" || e.previous_user_id !== undefined, {
    message: "is required for identify events",
    path: ["previous_user_id"],
  });

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
