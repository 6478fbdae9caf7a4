import fc from "fast-check";
import { freeForm, type JsonObject } from "./freeForm.js";
import { identifier } from "./identifiers.js";
import { validTimestamp } from "./timestamps.js";

/** CONTRACT 4's known event names per family, with their default weights. */
export const KNOWN_EVENTS = {
  exposure: { impression: 0, list_view: 0 },
  engagement: { view: 1, click: 1, like: 2, rate: 2, share: 2, add_to_cart: 3, add_to_wishlist: 2, remove_from_cart: -1, dislike: -2 },
  conversion: { purchase: 5, subscribe: 5, checkout: 4, play_complete: 3 },
  // The contract gives identify no weight ("stitching"); the server stores 0, as for session_start.
  system: { identify: 0, session_start: 0 },
} as const satisfies Record<string, Record<string, number>>;
export type Family = keyof typeof KNOWN_EVENTS;
export const FAMILIES = Object.keys(KNOWN_EVENTS) as Family[];
const KNOWN_WEIGHT: Record<string, number> = Object.assign({}, ...Object.values(KNOWN_EVENTS));

/** The weight CONTRACT 4 gives an event name: its known weight, else 1. */
export function contractWeight(name: string): number {
  return Object.hasOwn(KNOWN_WEIGHT, name) ? KNOWN_WEIGHT[name]! : 1;
}

export const STATUSES = ["active", "inactive", "deleted"] as const;
export type Status = (typeof STATUSES)[number];
/** Mostly active, so that many events reach recommendations. */
export const status: fc.Arbitrary<Status> = fc.constantFrom<Status>("active", "active", "active", "inactive", "deleted");

export interface Item {
  item_id: string;
  item_type: string;
  status: Status;
  attributes?: JsonObject;
  created_at?: string;
}

export interface User {
  user_id: string;
  status: Status;
  created_at: string;
  attributes?: JsonObject;
}

export interface Event {
  user_id: string;
  event_family: Family;
  event_name: string;
  item_id?: string | null;
  previous_user_id?: string;
  recommendation_id?: string;
  event_id?: string;
  context?: JsonObject;
  timestamp?: string;
}

export const item: fc.Arbitrary<Item> = fc.record(
  { item_id: identifier, item_type: identifier, status, attributes: freeForm, created_at: validTimestamp() },
  { requiredKeys: ["item_id", "item_type", "status"] },
);

export const user: fc.Arbitrary<User> = fc.record(
  { user_id: identifier, status, created_at: validTimestamp(), attributes: freeForm },
  { requiredKeys: ["user_id", "status", "created_at"] },
);

/** A name no identify check applies to: the grammar of CONTRACT 4 (`^[a-z][a-z0-9_.-]{0,63}$`). */
const unknownName = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,63}$/).filter((n) => n !== "identify");

const knownPair = fc.constantFrom(
  ...FAMILIES.flatMap((f) =>
    Object.keys(KNOWN_EVENTS[f])
      .filter((n) => n !== "identify")
      .map((n) => ({ event_family: f, event_name: n })),
  ),
);
const engaging = knownPair.filter((p) => p.event_family === "engagement" && KNOWN_WEIGHT[p.event_name]! > 0);
/**
 * Family and name: a known pair (engagements favoured: they are what recommendations show), an unknown name,
 * or a known name under another family (the contract allows it).
 */
const familyAndName = fc.oneof(
  { weight: 4, arbitrary: engaging },
  { weight: 4, arbitrary: knownPair },
  { weight: 2, arbitrary: fc.record({ event_family: fc.constantFrom(...FAMILIES), event_name: unknownName }) },
  { weight: 1, arbitrary: fc.record({ event_family: fc.constantFrom(...FAMILIES), event_name: knownPair.map((p) => p.event_name) }) },
);

/** A reference to an id of the scenario's pools (by position), to one of its anonymous users, or an id of its own. */
export type Ref = { pool: number } | { anon: number } | { own: string };
const ref: fc.Arbitrary<Ref> = fc.oneof(
  { weight: 4, arbitrary: fc.nat().map((pool) => ({ pool })) },
  { weight: 1, arbitrary: identifier.map((own) => ({ own })) },
);

/** An event before its ids are chosen from the pools. */
export interface EventSpec {
  user: Ref;
  item: "absent" | "null" | Ref;
  /** identify events always carry a previous id; others sometimes do (the contract allows it). */
  previous?: Ref;
  identify: boolean;
  names: { event_family: Family; event_name: string };
  recommendation_id?: string;
  event_id?: string;
  context?: JsonObject;
  timestamp?: string;
}

const eventSpec: fc.Arbitrary<EventSpec> = fc.record(
  {
    user: ref,
    item: fc.oneof({ weight: 1, arbitrary: fc.constantFrom<"absent" | "null">("absent", "null") }, { weight: 5, arbitrary: ref }),
    // Mostly an anonymous user with events of its own (the usual identify); sometimes any id, making chains and cycles.
    previous: fc.oneof({ weight: 3, arbitrary: fc.nat().map((anon): Ref => ({ anon })) }, { weight: 1, arbitrary: ref }),
    identify: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    names: familyAndName,
    recommendation_id: identifier,
    // Upper-case hex is a UUID too; the server must store (and deduplicate) it as the same uuid.
    event_id: fc.tuple(fc.uuid(), fc.boolean()).map(([u, upper]) => (upper ? u.toUpperCase() : u)),
    context: freeForm,
    timestamp: validTimestamp(),
  },
  { requiredKeys: ["user", "item", "identify", "names"] },
);

/** Resolves an EventSpec's references against the user pool, its anonymous part, and the item pool (all non-empty). */
export function resolveEvent(spec: EventSpec, users: readonly string[], anonymous: readonly string[], items: readonly string[]): Event {
  const pick = (r: Ref, pool: readonly string[]) =>
    "own" in r ? r.own : "anon" in r ? anonymous[r.anon % anonymous.length]! : pool[r.pool % pool.length]!;
  const e: Event = spec.identify
    ? { user_id: pick(spec.user, users), event_family: "system", event_name: "identify" }
    : { user_id: pick(spec.user, users), ...spec.names };
  if (spec.item === "null") e.item_id = null;
  else if (spec.item !== "absent") e.item_id = pick(spec.item, items);
  if (spec.identify) e.previous_user_id = pick(spec.previous ?? { pool: 0 }, users);
  else if (spec.previous && "own" in spec.previous) e.previous_user_id = spec.previous.own;
  if (spec.recommendation_id !== undefined) e.recommendation_id = spec.recommendation_id;
  if (spec.event_id !== undefined) e.event_id = spec.event_id;
  if (spec.context !== undefined) e.context = spec.context;
  if (spec.timestamp !== undefined) e.timestamp = spec.timestamp;
  return e;
}

/** One event on its own (for batches that only need valid neighbours). */
export const event: fc.Arbitrary<Event> = fc.tuple(eventSpec, identifier, identifier).map(([spec, u, i]) => resolveEvent(spec, [u], [u], [i]));

/**
 * What one property run sends: items and users (unique ids), then events whose users and items come mostly
 * from those pools (plus ids never upserted), some identify events, and exact repeats of some events.
 */
export interface Scenario {
  items: Item[];
  users: User[];
  events: Event[];
  /** Whether a one-record list goes as a bare object (the single form) rather than an array. */
  bare: { items: boolean; users: boolean; events: boolean };
}

export const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    items: fc.uniqueArray(item, { selector: (i) => i.item_id, minLength: 1, maxLength: 6 }),
    users: fc.uniqueArray(user, { selector: (u) => u.user_id, maxLength: 5 }),
    unknownUsers: fc.uniqueArray(identifier, { minLength: 1, maxLength: 3 }),
    unknownItems: fc.uniqueArray(identifier, { minLength: 1, maxLength: 2 }),
    specs: fc.uniqueArray(eventSpec, { selector: (s) => s.event_id?.toLowerCase() ?? s, minLength: 1, maxLength: 16 }),
    repeats: fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 3 }),
    anchor: fc.record({ names: engaging, at: fc.nat(), timestamp: fc.option(validTimestamp(), { nil: undefined }) }),
    bare: fc.record({ items: fc.boolean(), users: fc.boolean(), events: fc.boolean() }),
  })
  .map(({ items, users, unknownUsers, unknownItems, specs, repeats, anchor, bare }) => {
    const userPool = [...users.map((u) => u.user_id), ...unknownUsers];
    const itemPool = [...items.map((i) => i.item_id), ...unknownItems];
    const events = specs.map((s) => resolveEvent(s, userPool, unknownUsers, itemPool));
    // One engagement of an anonymous user with an active item, so that nearly every run has an answer to check.
    const active = items.find((i) => i.status === "active");
    if (active) {
      const e: Event = { user_id: unknownUsers[0]!, ...anchor.names, item_id: active.item_id };
      if (anchor.timestamp !== undefined) e.timestamp = anchor.timestamp;
      events.splice(anchor.at % (events.length + 1), 0, e);
    }
    for (const [at, flipCase] of repeats) {
      const original = events[at % events.length]!;
      if (original.event_id === undefined) continue;
      const id = flipCase ? swapCase(original.event_id) : original.event_id;
      events.push({ ...original, event_id: id });
    }
    return { items, users, events, bare };
  });

function swapCase(s: string): string {
  return s === s.toLowerCase() ? s.toUpperCase() : s.toLowerCase();
}
