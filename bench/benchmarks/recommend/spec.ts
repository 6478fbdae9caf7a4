/** The synthetic organisation the benchmark loads: the full size times SCALE, always the same seed. */
import { ITEM_STRATEGIES, USER_STRATEGIES, type Strategy } from "../../../src/wire/strategies.js";
import { itemId, userId, type SyntheticSpec } from "../../kit/synthetic.js";

const FULL = { items: 100_000, users: 50_000, events: 5_000_000 };
const TOPICS = 200;
/** A topic needs a few items for the planted structure to mean anything at small scales. */
const MIN_ITEMS_PER_TOPIC = 10;

export function benchSpec(scale: number): SyntheticSpec {
  const items = Math.max(100, Math.round(FULL.items * scale));
  return {
    items,
    users: Math.max(50, Math.round(FULL.users * scale)),
    events: Math.max(1000, Math.round(FULL.events * scale)),
    topics: Math.min(TOPICS, Math.floor(items / MIN_ITEMS_PER_TOPIC)),
    days: 60,
    seed: 20261122,
  };
}

export const specLine = (s: SyntheticSpec): string =>
  `${s.items.toLocaleString("en-US")} items, ${s.users.toLocaleString("en-US")} users, ${s.events.toLocaleString("en-US")} events, ${s.topics} topics over ${s.days} days`;

/** Recommend request bodies per strategy: a random known user or item each time, limit 20 (metadata included). */
export const LIMIT = 20;

/** A body maker for `strategy`: each call picks a new user or item (uniformly by `random`; every user has events). */
export function bodyMaker(strategy: Strategy, spec: SyntheticSpec, random = Math.random): () => string {
  const head = `{"strategy":"${strategy}","limit":${LIMIT}`;
  if (USER_STRATEGIES.has(strategy)) return () => `${head},"user_id":"${userId((random() * spec.users) | 0)}"}`;
  if (ITEM_STRATEGIES.has(strategy)) return () => `${head},"context_item_id":"${itemId((random() * spec.items) | 0)}"}`;
  return () => `${head}}`;
}
