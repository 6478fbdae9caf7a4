/**
 * View events over a fixed population of users and items drawn uniformly by `random`, every event_id fresh, as
 * ingest request bodies. A counted instance (bench:cluster's seeded one) also keeps the distinct users, items and
 * pairs it sent, so that the report can say what the load held.
 */
import { randomUUID } from "node:crypto";

export class ViewEvents {
  sent = 0;
  private readonly seen: Distinct | undefined;

  constructor(
    private readonly random: () => number,
    private readonly userCount: number,
    private readonly itemCount: number,
    counted = false,
  ) {
    this.seen = counted ? new Distinct(userCount, itemCount) : undefined;
  }

  userId = (): string => `user-${Math.floor(this.random() * this.userCount)}`;
  itemId = (): string => `item-${Math.floor(this.random() * this.itemCount)}`;

  private event(): string {
    const u = Math.floor(this.random() * this.userCount);
    const i = Math.floor(this.random() * this.itemCount);
    this.seen?.add(u, i);
    this.sent++;
    return `{"user_id":"user-${u}","event_family":"engagement","event_name":"view","item_id":"item-${i}","event_id":"${randomUUID()}"}`;
  }

  /** One request body: a single event object, or an array of `n` events. */
  body(n: number): string {
    if (n === 1) return this.event();
    const parts = new Array<string>(n);
    for (let k = 0; k < n; k++) parts[k] = this.event();
    return `[${parts.join(",")}]`;
  }

  distinct(): { events: number; users: number; items: number; pairs: number } {
    return { events: this.sent, ...(this.seen?.counts() ?? { users: NaN, items: NaN, pairs: NaN }) };
  }
}

/** bench:ingest's events: 20,000 users and 5,000 items, not counted. */
export const randomEvents = new ViewEvents(Math.random, 20_000, 5_000);

/** Distinct users, items and (user, item) pairs of one organisation's ingested events, as bitsets. */
export class Distinct {
  private readonly users: Uint8Array;
  private readonly items: Uint8Array;
  private readonly pairs: Uint8Array;

  constructor(
    private readonly userCount: number,
    private readonly itemCount: number,
  ) {
    this.users = new Uint8Array(Math.ceil(userCount / 8));
    this.items = new Uint8Array(Math.ceil(itemCount / 8));
    this.pairs = new Uint8Array(Math.ceil((userCount * itemCount) / 8));
  }

  add(user: number, item: number): void {
    set(this.users, user);
    set(this.items, item);
    set(this.pairs, user * this.itemCount + item);
  }

  counts(): { users: number; items: number; pairs: number; possiblePairs: number } {
    return { users: ones(this.users), items: ones(this.items), pairs: ones(this.pairs), possiblePairs: this.userCount * this.itemCount };
  }
}

const set = (bits: Uint8Array, i: number) => void (bits[i >> 3] |= 1 << (i & 7));

function ones(bits: Uint8Array): number {
  let n = 0;
  for (let b of bits) {
    for (; b; b &= b - 1) n++;
  }
  return n;
}
