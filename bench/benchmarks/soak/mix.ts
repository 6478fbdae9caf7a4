/**
 * The soak's traffic: which request comes next, and its body. Kinds are drawn by weight from a seeded PRNG,
 * organisations in turn at random. Events come from each organisation's own seeded synthetic stream (the same
 * planted tastes as its preloaded data, bench/kit/synthetic.ts), each with a fresh event_id and no timestamp
 * (the server stamps them now, so recently-viewed and trending see live data).
 */
import { randomUUID } from "node:crypto";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { bodyMaker } from "../recommend/spec.js";
import type { Strategy } from "../../../src/wire/strategies.js";
import { Distinct } from "../traffic/events.js";
import { itemId, syntheticEvents, topicOf, userId, type SyntheticEvent, type SyntheticSpec } from "../../kit/synthetic.js";

export const KINDS = ["recommend", "ingest-1", "ingest-100", "items-upsert", "users-upsert"] as const;
export type Kind = (typeof KINDS)[number];

/** Shares of the requests: about 1,600 events/s at 300 requests/s. */
const KIND_WEIGHTS: [Kind, number][] = [
  ["recommend", 0.55],
  ["ingest-1", 0.3],
  ["ingest-100", 0.05],
  ["items-upsert", 0.05],
  ["users-upsert", 0.05],
];
/** Every strategy of src/wire/strategies.ts has its share (a Record, so a new strategy does not compile without one). */
const STRATEGY_SHARES: Record<Strategy, number> = {
  personalized: 0.25,
  similar: 0.2,
  popular: 0.1,
  "recently-viewed": 0.1,
  "because-you-viewed": 0.1,
  trending: 0.05,
  "also-viewed": 0.05,
  "frequently-bought-together": 0.05,
  "buy-again": 0.05,
  "new-arrivals": 0.05,
};
const STRATEGY_WEIGHTS = Object.entries(STRATEGY_SHARES) as [Strategy, number][];
const ITEMS_PER_UPSERT = 10;

/** The next request: its kind, organisation, path, which of the organisation's keys it carries, body, and strategy (recommend). */
type Planned = { kind: Kind; org: number; path: string; key: "pk" | "sk"; body: string; strategy?: Strategy };

interface OrgTraffic {
  events: Iterator<SyntheticEvent>;
  recommend: Map<Strategy, () => string>;
  distinct: Distinct;
}

function pick<T>(random: () => number, weighted: [T, number][]): T {
  let r = random();
  for (const [v, w] of weighted) {
    if ((r -= w) < 0) return v;
  }
  return weighted[weighted.length - 1]![0];
}

const idNumber = (id: string) => Number(id.slice(id.indexOf("-") + 1));

export class Mix {
  private readonly random: () => number;
  private readonly orgs: OrgTraffic[];

  constructor(
    private readonly specs: SyntheticSpec[],
    seed: number,
  ) {
    this.random = seededRandom(seed);
    this.orgs = specs.map((spec) => ({
      // An endless stream: far more events than any soak sends, so it never runs dry.
      events: syntheticEvents({ ...spec, events: 1e12, seed: spec.seed + 7919 })[Symbol.iterator](),
      recommend: new Map(STRATEGY_WEIGHTS.map(([s]) => [s, bodyMaker(s, spec)])),
      distinct: new Distinct(spec.users, spec.items),
    }));
  }

  next(): Planned {
    const org = Math.floor(this.random() * this.orgs.length);
    const kind = pick(this.random, KIND_WEIGHTS);
    switch (kind) {
      case "recommend": {
        const strategy = pick(this.random, STRATEGY_WEIGHTS);
        return { kind, org, path: "/v1/recommend", key: "pk", body: this.orgs[org]!.recommend.get(strategy)!(), strategy };
      }
      case "ingest-1":
        return { kind, org, path: "/v1/events/ingest", key: "pk", body: this.event(org) };
      case "ingest-100":
        return { kind, org, path: "/v1/events/ingest", key: "pk", body: `[${Array.from({ length: 100 }, () => this.event(org)).join(",")}]` };
      case "items-upsert":
        return {
          kind,
          org,
          path: "/v1/items/upsert",
          key: "sk",
          body: JSON.stringify(Array.from({ length: ITEMS_PER_UPSERT }, () => this.item(org))),
        };
      case "users-upsert":
        return { kind, org, path: "/v1/users/upsert", key: "sk", body: JSON.stringify(this.user(org)) };
    }
  }

  distinct(): ReturnType<Distinct["counts"]>[] {
    return this.orgs.map((o) => o.distinct.counts());
  }

  private event(org: number): string {
    const o = this.orgs[org]!;
    const e = o.events.next().value as SyntheticEvent;
    o.distinct.add(idNumber(e.user_id), idNumber(e.item_id));
    return `{"user_id":"${e.user_id}","item_id":"${e.item_id}","event_family":"${e.event_family}","event_name":"${e.event_name}","event_id":"${randomUUID()}"}`;
  }

  /** An existing item with a new price (the catalog stays the same size). */
  private item(org: number) {
    const spec = this.specs[org]!;
    const i = Math.floor(this.random() * spec.items);
    return {
      item_id: itemId(i),
      item_type: "product",
      status: "active",
      attributes: { topic: `topic-${topicOf(spec, i)}`, brand: `brand-${i % 50}`, price: Math.round(this.random() * 20000) / 100 },
    };
  }

  private user(org: number) {
    const u = Math.floor(this.random() * this.specs[org]!.users);
    return {
      user_id: userId(u),
      status: "active",
      created_at: "2025-01-01T00:00:00Z",
      attributes: { tier: this.random() < 0.2 ? "gold" : "standard" },
    };
  }
}
