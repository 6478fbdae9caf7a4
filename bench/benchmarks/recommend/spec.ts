/** The synthetic organisation the benchmark loads: the full size times SCALE, always the same seed. */
import type { SyntheticSpec } from "../../kit/synthetic.js";

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
