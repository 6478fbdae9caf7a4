import { ensureLength } from "../index/growable.js";

/**
 * Scores summed per dense item id over one request, emptied in O(1) (each id holds the generation it was
 * written in): no Map entry and no boxed number per item. Each item also keeps its largest single part and
 * that part's tag (say, the anchor item it came through). One per use per thread, reused by every request.
 */
export class ScoreBoard {
  private stamps = new Int32Array(1024);
  private sums = new Float64Array(1024);
  private bestParts = new Float64Array(1024);
  private bestTags = new Int32Array(1024);
  private generation = 1;
  /** The items written since `clear`, in first-written order: items[0 .. size). */
  items = new Int32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
    if (++this.generation === 0x7fffffff) {
      this.stamps.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `part` to the item's sum; the tag is kept when this part is the item's largest so far. */
  add(item: number, part: number, tag = -1): void {
    if (item >= this.stamps.length) this.grow(item + 1);
    if (this.stamps[item] !== this.generation) {
      this.stamps[item] = this.generation;
      this.sums[item] = part;
      this.bestParts[item] = part;
      this.bestTags[item] = tag;
      this.items = ensureLength(this.items, this.size + 1);
      this.items[this.size++] = item;
      return;
    }
    this.sums[item]! += part;
    if (part > this.bestParts[item]!) {
      this.bestParts[item] = part;
      this.bestTags[item] = tag;
    }
  }

  /** Replaces the item's sum (an item written since `clear` only). */
  setSum(item: number, sum: number): void {
    this.sums[item] = sum;
  }

  sum(item: number): number {
    return item < this.stamps.length && this.stamps[item] === this.generation ? this.sums[item]! : 0;
  }

  /** The tag of the item's largest part (-1 when untagged or not written). */
  bestTag(item: number): number {
    return item < this.stamps.length && this.stamps[item] === this.generation ? this.bestTags[item]! : -1;
  }

  private grow(length: number): void {
    this.stamps = ensureLength(this.stamps, length);
    this.sums = ensureLength(this.sums, length);
    this.bestParts = ensureLength(this.bestParts, length);
    this.bestTags = ensureLength(this.bestTags, length);
  }
}
