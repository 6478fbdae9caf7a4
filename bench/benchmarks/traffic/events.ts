/**
 * View events over a fixed population of users and items drawn uniformly by `random`, every event_id fresh, as
 * ingest request bodies. A counted instance (bench:cluster's seeded one) also keeps the distinct users, items and
 * pairs it sent, so that the report can say what the load held.
 */
import { randomUUID } from "node:crypto";

export class ViewEvents {
  sent = 0;
  private readonly seen: { users: Set<number>; items: Set<number>; pairs: Set<number> } | undefined;

  constructor(
    private readonly random: () => number,
    private readonly userCount: number,
    private readonly itemCount: number,
    counted = false,
  ) {
    this.seen = counted ? { users: new Set(), items: new Set(), pairs: new Set() } : undefined;
  }

  userId = (): string => `user-${Math.floor(this.random() * this.userCount)}`;
  itemId = (): string => `item-${Math.floor(this.random() * this.itemCount)}`;

  private event(): string {
    const u = Math.floor(this.random() * this.userCount);
    const i = Math.floor(this.random() * this.itemCount);
    this.seen?.users.add(u);
    this.seen?.items.add(i);
    this.seen?.pairs.add(u * this.itemCount + i);
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
    return { events: this.sent, users: this.seen?.users.size ?? NaN, items: this.seen?.items.size ?? NaN, pairs: this.seen?.pairs.size ?? NaN };
  }
}

/** bench:ingest's events: 20,000 users and 5,000 items, not counted. */
export const randomEvents = new ViewEvents(Math.random, 20_000, 5_000);
