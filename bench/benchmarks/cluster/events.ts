/**
 * Ingest bodies from a seeded PRNG over a fixed population (users and items drawn uniformly), every event_id
 * fresh, counting the distinct users, items and pairs sent so the report can say what the load held.
 */
import { randomUUID } from "node:crypto";
import { seededRandom } from "../../../workers/training/linalg.js";

export class SeededEvents {
  private readonly random: () => number;
  private readonly users = new Set<number>();
  private readonly items = new Set<number>();
  private readonly pairs = new Set<number>();
  sent = 0;

  constructor(
    seed: number,
    private readonly userCount: number,
    private readonly itemCount: number,
    private readonly userPrefix = "user-",
    private readonly itemPrefix = "item-",
  ) {
    this.random = seededRandom(seed);
  }

  private event(): string {
    const u = Math.floor(this.random() * this.userCount);
    const i = Math.floor(this.random() * this.itemCount);
    this.users.add(u);
    this.items.add(i);
    this.pairs.add(u * this.itemCount + i);
    this.sent++;
    return `{"user_id":"${this.userPrefix}${u}","event_family":"engagement","event_name":"view","item_id":"${this.itemPrefix}${i}","event_id":"${randomUUID()}"}`;
  }

  /** One request body: a single event object, or an array of `n` events. */
  body(n: number): string {
    if (n === 1) return this.event();
    const parts = new Array<string>(n);
    for (let k = 0; k < n; k++) parts[k] = this.event();
    return `[${parts.join(",")}]`;
  }

  distinct(): { events: number; users: number; items: number; pairs: number } {
    return { events: this.sent, users: this.users.size, items: this.items.size, pairs: this.pairs.size };
  }
}
