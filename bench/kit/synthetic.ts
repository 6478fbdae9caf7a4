import { seededRandom } from "../../workers/model/seededRandom.js";

/**
 * A seeded synthetic organisation with planted latent structure: items belong to topics, each user prefers one
 * or two topics, and picks items within a topic by a power law. A model that learns the topics beats popularity;
 * the same seed always gives the same data.
 */
export interface SyntheticSpec {
  users: number;
  items: number;
  events: number;
  topics: number;
  /** Events span this many days, ending now. */
  days: number;
  seed: number;
  /** Share of a user's events in their own topics (the rest are random items). */
  focus?: number;
}

export interface SyntheticEvent {
  user_id: string;
  item_id: string;
  event_family: "engagement" | "conversion";
  event_name: "view" | "add_to_cart" | "purchase";
  /** Milliseconds since the epoch; events come in time order. */
  at: number;
}

const DAY_MS = 86_400_000;
const BRANDS = 50;

export const itemId = (i: number) => `item-${i}`;
export const userId = (u: number) => `user-${u}`;
export const topicOf = (spec: SyntheticSpec, item: number) => item % spec.topics;

export function* syntheticItems(spec: SyntheticSpec) {
  const random = seededRandom(spec.seed + 1);
  const end = Date.now();
  for (let i = 0; i < spec.items; i++) {
    yield {
      item_id: itemId(i),
      item_type: "product",
      status: "active",
      attributes: { topic: `topic-${topicOf(spec, i)}`, brand: `brand-${Math.floor(random() * BRANDS)}`, price: Math.round(random() * 20000) / 100 },
      created_at: new Date(end - (spec.days + 30) * DAY_MS * random()).toISOString(),
    };
  }
}

export function* syntheticUsers(spec: SyntheticSpec) {
  const end = Date.now();
  for (let u = 0; u < spec.users; u++)
    yield { user_id: userId(u), status: "active", created_at: new Date(end - (spec.days + 60) * DAY_MS).toISOString() };
}

/** Events in time order; users take turns at random, each drawing from their topics with a Zipf-like skew. */
export function* syntheticEvents(spec: SyntheticSpec): Generator<SyntheticEvent> {
  const random = seededRandom(spec.seed);
  const focus = spec.focus ?? 0.85;
  const perTopic = Math.ceil(spec.items / spec.topics);
  const tastes = Array.from({ length: spec.users }, () => {
    const first = Math.floor(random() * spec.topics);
    return random() < 0.5 ? [first] : [first, Math.floor(random() * spec.topics)];
  });
  const end = Date.now();
  const start = end - spec.days * DAY_MS;
  const step = (end - start) / spec.events;
  for (let k = 0; k < spec.events; k++) {
    const u = Math.floor(random() * spec.users);
    let item: number;
    if (random() < focus) {
      const taste = tastes[u]!;
      const topic = taste[Math.floor(random() * taste.length)]!;
      // Rank r within the topic with probability ∝ 1/(r+1): a few hits, a long tail.
      const r = Math.min(perTopic - 1, Math.floor(Math.exp(random() * Math.log(perTopic + 1)) - 1));
      item = Math.min(spec.items - 1, topic + r * spec.topics);
    } else {
      item = Math.floor(random() * spec.items);
    }
    const kind = random();
    const event_name = kind < 0.8 ? "view" : kind < 0.92 ? "add_to_cart" : "purchase";
    yield {
      user_id: userId(u),
      item_id: itemId(item),
      event_family: event_name === "purchase" ? "conversion" : "engagement",
      event_name,
      at: Math.round(start + k * step),
    };
  }
}
