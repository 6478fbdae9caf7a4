import { ensureLength } from "../index/growable.js";
import { Marks } from "../index/marks.js";

/**
 * Scores summed per dense item id over one request, emptied in O(1) (the written ids are Marks): no Map entry
 * and no boxed number per item. Each item also keeps its largest single part and that part's tag (say, the
 * anchor item it came through). One per use per thread, reused by every request.
 */
export class ScoreBoard {
  private readonly written = new Marks();
  private sums = new Float64Array(1024);
  private bestParts = new Float64Array(1024);
  private bestTags = new Int32Array(1024);
  /** The items written since `clear`, in first-written order: items[0 .. size). */
  items = new Int32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
    this.written.clear();
  }

  /** Adds `part` to the item's sum; the tag is kept when this part is the item's largest so far. */
  add(item: number, part: number, tag = -1): void {
    if (!this.written.has(item)) {
      this.written.add(item);
      this.grow(item + 1);
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
    return this.written.has(item) ? this.sums[item]! : 0;
  }

  /** The tag of the item's largest part (-1 when untagged or not written). */
  bestTag(item: number): number {
    return this.written.has(item) ? this.bestTags[item]! : -1;
  }

  private grow(length: number): void {
    this.sums = ensureLength(this.sums, length);
    this.bestParts = ensureLength(this.bestParts, length);
    this.bestTags = ensureLength(this.bestTags, length);
  }
}
