import fc from "fast-check";
import { overLimitFreeForm, refusedShapeFreeForm, unstorableFreeForm } from "./freeForm.js";
import { invalidIdentifier } from "./identifiers.js";
import { event, item, user, type Event } from "./records.js";
import { farOffsetTimestamp, futureTimestamp, malformedTimestamp } from "./timestamps.js";

export type Kind = "items" | "users" | "events";

/** One record the contract refuses, tagged with what is broken in it. */
export interface Broken {
  kind: Kind;
  record: unknown;
  /** The field the message must name (`items[3].item_id`); "" when the record as a whole is refused. */
  field: string;
  /** For an unknown top-level field: its name, which the message must quote. */
  unknownKey?: string;
  why: string;
}

/** The top-level fields each kind allows (CONTRACT 4 and the spec's record shapes). */
export const FIELDS: Record<Kind, readonly string[]> = {
  items: ["item_id", "item_type", "status", "attributes", "created_at"],
  users: ["user_id", "status", "created_at", "attributes"],
  events: ["user_id", "event_family", "event_name", "previous_user_id", "item_id", "recommendation_id", "event_id", "context", "timestamp"],
};
const REQUIRED: Record<Kind, readonly string[]> = {
  items: ["item_id", "item_type", "status"],
  users: ["user_id", "status", "created_at"],
  events: ["user_id", "event_family", "event_name"],
};

type Breaker = fc.Arbitrary<{ value: unknown; why: string }>;
const tagged = (values: unknown[], why: string): Breaker => fc.constantFrom(...values).map((value) => ({ value, why }));

const badStatus = tagged(["Active", "ACTIVE", "", "archived", "active ", "enabled", 1, null, true], "not a status");
const badFreeForm: Breaker = fc.oneof(
  unstorableFreeForm,
  refusedShapeFreeForm,
  overLimitFreeForm.map((value) => ({ value, why: `${Buffer.byteLength(JSON.stringify(value))} bytes of JSON` })),
  tagged([[], [1, 2], "text", 1, true], "not an object"),
);
const badCreatedAt: Breaker = fc.oneof(
  malformedTimestamp.map((value) => ({ value, why: "malformed" })),
  farOffsetTimestamp.map((value) => ({ value, why: "offset beyond ±15:59" })),
);
const badTimestamp: Breaker = fc.oneof(
  badCreatedAt,
  futureTimestamp().map((value) => ({ value, why: "more than 24 h ahead" })),
);
const badFamily = tagged(["Engagement", "ENGAGEMENT", "bogus", "", "engagement ", "conversions", 3, null, ["engagement"]], "not a family");
const badName = tagged(
  ["", "View", "1view", "_view", "-view", "view!", "vi ew", "v\u00efew", "view\n", "a".repeat(65), `a${"b".repeat(64)}`, 7, null, ["view"]],
  "not an event name",
);
const badEventId = fc
  .uuid()
  .chain((u) =>
    tagged(["123", "", u.replaceAll("-", ""), `{${u}}`, `${u}0`, u.slice(0, -1), `${u.slice(0, -1)}g`, ` ${u}`, 123, null], "not a UUID"),
  );

/** Field breakers per kind: every identifier field, the enums, the free-form fields, the times. */
const BREAKERS: Record<Kind, Record<string, Breaker>> = {
  items: { item_id: invalidIdentifier, item_type: invalidIdentifier, status: badStatus, attributes: badFreeForm, created_at: badCreatedAt },
  users: { user_id: invalidIdentifier, status: badStatus, created_at: badCreatedAt, attributes: badFreeForm },
  events: {
    user_id: invalidIdentifier,
    item_id: invalidIdentifier,
    previous_user_id: invalidIdentifier,
    recommendation_id: invalidIdentifier,
    event_family: badFamily,
    event_name: badName,
    event_id: badEventId,
    context: badFreeForm,
    timestamp: badTimestamp,
  },
};

const asFields = (r: object) => ({ ...r }) as Record<string, unknown>;
const VALID: Record<Kind, fc.Arbitrary<Record<string, unknown>>> = {
  items: item.map(asFields),
  users: user.map(asFields),
  events: event.map(asFields),
};

/** Names no record of `kind` may carry: typos, other kinds' fields, keys special to JavaScript. */
function unknownKey(kind: Kind): fc.Arbitrary<string> {
  const others = [...new Set(Object.values(FIELDS).flat())];
  const candidates = ["colour", "itemId", "Item_id", "user_id ", "USER_ID", "id", "__proto__", "constructor", "", "data", ...others];
  return fc.constantFrom(...candidates).filter((k) => !FIELDS[kind].includes(k));
}

function withField(record: Record<string, unknown>, name: string, value: unknown): Record<string, unknown> {
  return { ...record, [name]: value }; // a computed key: `__proto__` becomes an own field, as JSON.parse makes it
}

function without(record: Record<string, unknown>, name: string): Record<string, unknown> {
  const copy = { ...record };
  delete copy[name];
  return copy;
}

/** A record of `kind` with exactly one thing wrong. */
export function brokenRecord(kind: Kind): fc.Arbitrary<Broken> {
  const fields = Object.entries(BREAKERS[kind]).map(([field, breaker]) =>
    fc.tuple(VALID[kind], breaker).map(([r, b]): Broken => ({ kind, record: withField(r, field, b.value), field, why: b.why })),
  );
  const missing = fc
    .tuple(VALID[kind], fc.constantFrom(...REQUIRED[kind]))
    .map(([r, field]): Broken => ({ kind, record: without(r, field), field, why: "missing" }));
  const unknown = fc
    .tuple(VALID[kind], unknownKey(kind), fc.constantFrom<unknown>("x", 1, null, {}))
    .map(([r, key, value]): Broken => ({ kind, record: withField(r, key, value), field: "", unknownKey: key, why: "unknown field" }));
  const notObject = tagged([null, "record", 1, [], [{}]], "not an object").map(({ value, why }): Broken => ({ kind, record: value, field: "", why }));
  const variants = [...fields, missing, unknown, notObject];
  if (kind === "events") variants.push(identifyWithoutPrevious);
  return fc.oneof(...variants);
}

const identifyWithoutPrevious: fc.Arbitrary<Broken> = event.map((e): Broken => {
  const { previous_user_id: _, ...rest } = e;
  const record: Omit<Event, "previous_user_id"> = { ...rest, event_family: "system", event_name: "identify" };
  return { kind: "events", record, field: "previous_user_id", why: "identify without previous_user_id" };
});

/** A request of one kind: valid records around one broken record, or the broken one alone as a bare object. */
export interface InvalidRequest {
  broken: Broken;
  records: unknown[];
  /** Where the broken record sits in the array; undefined when it is sent as a bare object. */
  index: number | undefined;
}

export const invalidRequest: fc.Arbitrary<InvalidRequest> = fc
  .constantFrom<Kind>("items", "users", "events")
  .chain((kind) =>
    fc.record({
      broken: brokenRecord(kind),
      before: fc.array(VALID[kind], { maxLength: 3 }),
      after: fc.array(VALID[kind], { maxLength: 3 }),
      bare: fc.boolean(),
    }),
  )
  .map(({ broken, before, after, bare }) => {
    const isObject = typeof broken.record === "object" && broken.record !== null && !Array.isArray(broken.record);
    if (bare && isObject && before.length === 0 && after.length === 0) return { broken, records: [broken.record], index: undefined };
    return { broken, records: [...before, broken.record, ...after], index: before.length };
  });
