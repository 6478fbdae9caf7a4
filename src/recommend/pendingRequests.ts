const FIRST_SLOTS = 1024;

/**
 * Requests waiting for a shard's answer, by id. Ids are handed out in order and every request gets the same
 * timeout, so a ring indexed by id is both the lookup and the deadline order. A Map did the same, but each time
 * it compacted its deleted entries the table it left behind still held the requests of that moment: once such
 * a table had been promoted, it kept them (and each request's context) alive through every young-generation
 * collection until the next full one, and those collections copied them.
 */
export class PendingRequests<T> {
  private waiting: (T | undefined)[] = new Array<T | undefined>(FIRST_SLOTS).fill(undefined);
  private deadlines = new Float64Array(FIRST_SLOTS);
  /** Ids below `oldest` are settled; ids from `next` on are not handed out yet. */
  private oldest = 1;
  private next = 1;
  private live = 0;

  /** How many values wait. */
  get size(): number {
    return this.live;
  }

  /** Keeps `value` until `take` or its deadline; returns its id. */
  add(value: T, deadline: number): number {
    if (this.next - this.oldest === this.waiting.length) this.grow();
    const id = this.next++;
    const slot = id & (this.waiting.length - 1);
    this.waiting[slot] = value;
    this.deadlines[slot] = deadline;
    this.live++;
    return id;
  }

  /** The value kept for `id`, removed; undefined when it was taken or expired already. */
  take(id: number): T | undefined {
    if (id < this.oldest || id >= this.next) return undefined;
    const slot = id & (this.waiting.length - 1);
    const value = this.waiting[slot];
    this.waiting[slot] = undefined;
    if (value !== undefined) this.live--;
    this.skipSettled();
    return value;
  }

  /** Removes every value whose deadline is at or before `now`, oldest first, handing each to `expired`. */
  expire(now: number, expired: (value: T) => void): void {
    while (this.oldest < this.next) {
      const slot = this.oldest & (this.waiting.length - 1);
      const value = this.waiting[slot];
      if (value !== undefined) {
        if (this.deadlines[slot]! > now) return;
        this.waiting[slot] = undefined;
        this.live--;
        expired(value);
      }
      this.oldest++;
    }
  }

  /** Removes every value, oldest first, handing each to `visit`. */
  drain(visit: (value: T) => void): void {
    this.expire(Infinity, visit);
  }

  private skipSettled(): void {
    const mask = this.waiting.length - 1;
    while (this.oldest < this.next && this.waiting[this.oldest & mask] === undefined) this.oldest++;
  }

  /** Doubles the ring; every waiting id keeps its value and deadline. */
  private grow(): void {
    const size = this.waiting.length * 2;
    const waiting = new Array<T | undefined>(size).fill(undefined);
    const deadlines = new Float64Array(size);
    const oldMask = this.waiting.length - 1;
    for (let id = this.oldest; id < this.next; id++) {
      waiting[id & (size - 1)] = this.waiting[id & oldMask];
      deadlines[id & (size - 1)] = this.deadlines[id & oldMask]!;
    }
    this.waiting = waiting;
    this.deadlines = deadlines;
  }
}
