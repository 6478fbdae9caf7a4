import { ensureLength } from "../index/growable.js";

/** Per slot: the item and the generation it was written in (keys), then its sum, largest part and that part's tag. */
const KEY = 0;
const STAMP = 1;
const SUM = 0;
const BEST_PART = 1;
const BEST_TAG = 2;
const VALUES = 3;
const FIRST_SLOTS = 1024;

/**
 * Scores summed per item id over one request, emptied in O(1) (each slot holds the generation it was written
 * in): no Map entry and no boxed number per item. Each item also keeps its largest single part and that part's
 * tag (say, the anchor item it came through). An open-addressing table sized to the request's items, not to
 * the catalog: a table indexed by item id spread a request's few hundred items over megabytes, a cache miss
 * for each. One per use per thread, reused by every request.
 */
export class ScoreBoard {
  private keys = new Int32Array(FIRST_SLOTS * 2);
  private values = new Float64Array(FIRST_SLOTS * VALUES);
  private shift = 32 - Math.log2(FIRST_SLOTS);
  private generation = 1;
  /** The items written since `clear`, in first-written order: items[0 .. size). */
  items = new Int32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
    if (++this.generation === 0x7fffffff) {
      this.keys.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `part` to the item's sum; the tag is kept when this part is the item's largest so far. */
  add(item: number, part: number, tag = -1): void {
    const slot = this.slotFor(item);
    const v = this.values;
    const at = slot * VALUES;
    if (this.keys[slot * 2 + STAMP] !== this.generation) {
      this.keys[slot * 2 + KEY] = item;
      this.keys[slot * 2 + STAMP] = this.generation;
      v[at + SUM] = part;
      v[at + BEST_PART] = part;
      v[at + BEST_TAG] = tag;
      this.append(item);
      return;
    }
    v[at + SUM] += part;
    if (part > v[at + BEST_PART]!) {
      v[at + BEST_PART] = part;
      v[at + BEST_TAG] = tag;
    }
  }

  /** Replaces the item's sum (an item written since `clear` only). */
  setSum(item: number, sum: number): void {
    const slot = this.find(item);
    if (slot >= 0) this.values[slot * VALUES + SUM] = sum;
  }

  sum(item: number): number {
    const slot = this.find(item);
    return slot < 0 ? 0 : this.values[slot * VALUES + SUM]!;
  }

  /** The tag of the item's largest part (-1 when untagged or not written). */
  bestTag(item: number): number {
    const slot = this.find(item);
    return slot < 0 ? -1 : this.values[slot * VALUES + BEST_TAG]!;
  }

  /** The item's slot, or -1 when it was not written since `clear`. */
  private find(item: number): number {
    const mask = (this.keys.length >> 1) - 1;
    for (let slot = this.home(item); ; slot = (slot + 1) & mask) {
      if (this.keys[slot * 2 + STAMP] !== this.generation) return -1;
      if (this.keys[slot * 2 + KEY] === item) return slot;
    }
  }

  /** The item's slot, or the free slot where it goes (growing the table first when it is half full). */
  private slotFor(item: number): number {
    if (this.size * 2 >= this.keys.length >> 1) this.grow();
    const mask = (this.keys.length >> 1) - 1;
    let slot = this.home(item);
    while (this.keys[slot * 2 + STAMP] === this.generation && this.keys[slot * 2 + KEY] !== item) slot = (slot + 1) & mask;
    return slot;
  }

  private home(item: number): number {
    return Math.imul(item, 0x9e3779b1) >>> this.shift;
  }

  private append(item: number): void {
    if (this.size === this.items.length) this.items = ensureLength(this.items, this.size + 1);
    this.items[this.size++] = item;
  }

  /** Doubles the slots and puts every written item back, in the order it was first written. */
  private grow(): void {
    const { keys, values } = this;
    const old = (keys.length >> 1) - 1;
    const slots = keys.length;
    this.keys = new Int32Array(slots * 2);
    this.values = new Float64Array(slots * VALUES);
    this.shift--;
    const generation = this.generation;
    const mask = slots - 1;
    for (let k = 0; k < this.size; k++) {
      const item = this.items[k]!;
      let from = Math.imul(item, 0x9e3779b1) >>> (this.shift + 1);
      while (keys[from * 2 + KEY] !== item || keys[from * 2 + STAMP] !== generation) from = (from + 1) & old;
      let to = this.home(item);
      while (this.keys[to * 2 + STAMP] === generation) to = (to + 1) & mask;
      this.keys[to * 2 + KEY] = item;
      this.keys[to * 2 + STAMP] = generation;
      this.values.set(values.subarray(from * VALUES, from * VALUES + VALUES), to * VALUES);
    }
  }
}
