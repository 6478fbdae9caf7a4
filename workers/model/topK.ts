/**
 * The k best (score, item) pairs seen so far, in a binary min-heap over two typed arrays. Ties go to the lower
 * item id, so the same data always gives the same order (stable pages).
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private n = 0;
  /** The score `wouldTake` was last asked about (see `take`); a number field is updated in place, not boxed anew. */
  private judged = 0;

  constructor(private k: number) {
    // One allocation for both arrays: a request builds a few of these.
    const capacity = Math.max(1, k);
    const memory = new ArrayBuffer(capacity * 12);
    this.scores = new Float64Array(memory, 0, capacity);
    this.items = new Int32Array(memory, capacity * 8, capacity);
  }

  get size(): number {
    return this.n;
  }

  /** The score an offer must reach to have a chance (ties with a lower item id enter): −∞ until the heap is full. */
  threshold(): number {
    return this.n < this.k ? -Infinity : this.scores[0]!;
  }

  /** True when (score, item) would enter the heap: lets callers skip costly checks for hopeless items. */
  wouldTake(score: number, item: number): boolean {
    this.judged = score;
    return this.n < this.k || this.better(score, item, this.scores[0]!, this.items[0]!);
  }

  /**
   * Offers `item` with the score `wouldTake` was just asked about. Hot loops use this pair: a fraction passed to
   * a call the compiler does not inline is boxed (one allocation per offer), and the heap update is too large
   * to inline, so the score reaches it through a field instead.
   */
  take(item: number): void {
    if (this.k === 0) return;
    const score = this.judged;
    if (this.n < this.k) {
      // Filled in arrival order, and made a heap once full: nothing reads the root before then.
      this.scores[this.n] = score;
      this.items[this.n] = item;
      if (++this.n === this.k) this.heapify();
    } else if (this.better(score, item, this.scores[0]!, this.items[0]!)) {
      this.scores[0] = score;
      this.items[0] = item;
      this.down(0);
    }
  }

  offer(score: number, item: number): void {
    this.judged = score;
    this.take(item);
  }

  /**
   * The k-th kept item and its score, in no particular order (k < size). Plain reads rather than a callback:
   * a fractional score passed to a callback the compiler does not inline is boxed, once per candidate.
   */
  item(k: number): number {
    return this.items[k]!;
  }

  score(k: number): number {
    return this.scores[k]!;
  }

  /**
   * Best first, sorted in place (a heapsort over the kept pairs: no copy, no comparator calls). This ends the
   * heap: call it last. The arrays are views of this TopK's own.
   */
  sorted(): { items: Int32Array; scores: Float64Array } {
    const size = this.n;
    if (size < this.k) this.heapify();
    // The worst kept pair sits at the root: moving it behind the shrinking heap leaves the best in front.
    while (this.n > 1) {
      this.swap(0, --this.n);
      this.down(0);
    }
    this.n = size;
    this.k = 0;
    return { items: this.items.subarray(0, size), scores: this.scores.subarray(0, size) };
  }

  private better(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 > s2 || (s1 === s2 && i1 < i2);
  }

  /** Floyd's bottom-up construction: linear, where inserting one by one costs a sift each. */
  private heapify(): void {
    for (let i = (this.n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** Sinks the pair at i while a child is worse than it (the worst belongs at the root), moving children up into the hole rather than swapping. */
  private down(i: number): void {
    const { scores, items, n } = this;
    const s = scores[i]!;
    const it = items[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      // The worse of the two children is the one that belongs nearer the root.
      if (c + 1 < n && this.better(scores[c]!, items[c]!, scores[c + 1]!, items[c + 1]!)) c++;
      if (!this.better(s, it, scores[c]!, items[c]!)) break;
      scores[i] = scores[c]!;
      items[i] = items[c]!;
      i = c;
    }
    scores[i] = s;
    items[i] = it;
  }

  private swap(a: number, b: number): void {
    const s = this.scores[a]!;
    this.scores[a] = this.scores[b]!;
    this.scores[b] = s;
    const t = this.items[a]!;
    this.items[a] = this.items[b]!;
    this.items[b] = t;
  }
}
