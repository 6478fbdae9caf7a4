import { ensureLength } from "./growable.js";

/**
 * A set of dense ids that empties in O(1): each id holds the generation it was marked in. One per thread,
 * reused by every request, so a request that remembers a few hundred items allocates nothing for it.
 */
export class Marks {
  private stamps = new Int32Array(1024);
  private generation = 1;

  /** Empties the set. */
  clear(): void {
    if (++this.generation === 0x7fffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  add(id: number): void {
    if (id >= this.stamps.length) this.stamps = ensureLength(this.stamps, id + 1);
    this.stamps[id] = this.generation;
  }

  has(id: number): boolean {
    return id < this.stamps.length && this.stamps[id] === this.generation;
  }
}
