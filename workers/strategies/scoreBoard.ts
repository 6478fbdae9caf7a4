import { ensureLength } from "../index/growable.js";

/** Per item, four numbers side by side: one cache line to touch, where four arrays meant four misses. */
const STAMP = 0;
const SUM = 1;
const BEST_PART = 2;
const BEST_TAG = 3;
const CELL = 4;

/**
 * Scores summed per dense item id over one request, emptied in O(1) (each item's cell holds the generation it
 * was written in): no Map entry and no boxed number per item. Each item also keeps its largest single part and
 * that part's tag (say, the anchor item it came through). One per use per thread, reused by every request.
 */
export class ScoreBoard {
  private cells = new Float64Array(1024 * CELL);
  private generation = 1;
  /** The items written since `clear`, in first-written order: items[0 .. size). */
  items = new Int32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
    if (++this.generation === 0x7fffffff) {
      this.cells.fill(0);
      this.generation = 1;
    }
  }

  /** Adds `part` to the item's sum; the tag is kept when this part is the item's largest so far. */
  add(item: number, part: number, tag = -1): void {
    const at = item * CELL;
    if (at >= this.cells.length) this.cells = ensureLength(this.cells, at + CELL);
    const cells = this.cells;
    if (cells[at + STAMP] !== this.generation) {
      cells[at + STAMP] = this.generation;
      cells[at + SUM] = part;
      cells[at + BEST_PART] = part;
      cells[at + BEST_TAG] = tag;
      if (this.size === this.items.length) this.items = ensureLength(this.items, this.size + 1);
      this.items[this.size++] = item;
      return;
    }
    cells[at + SUM] += part;
    if (part > cells[at + BEST_PART]!) {
      cells[at + BEST_PART] = part;
      cells[at + BEST_TAG] = tag;
    }
  }

  /** Replaces the item's sum (an item written since `clear` only). */
  setSum(item: number, sum: number): void {
    this.cells[item * CELL + SUM] = sum;
  }

  sum(item: number): number {
    return this.written(item) ? this.cells[item * CELL + SUM]! : 0;
  }

  /** The tag of the item's largest part (-1 when untagged or not written). */
  bestTag(item: number): number {
    return this.written(item) ? this.cells[item * CELL + BEST_TAG]! : -1;
  }

  private written(item: number): boolean {
    const at = item * CELL;
    return at < this.cells.length && this.cells[at + STAMP] === this.generation;
  }
}
