/**
 * The k best (score, item) pairs seen so far, in a binary min-heap over two typed arrays. Ties go to the lower
 * item id, so the same data always gives the same order (stable pages).
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly items: Int32Array;
  private n = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(1, k));
    this.items = new Int32Array(Math.max(1, k));
  }

  get size(): number {
    return this.n;
  }

  /** True when (score, item) would enter the heap: lets callers skip costly checks for hopeless items. */
  wouldTake(score: number, item: number): boolean {
    return this.n < this.k || this.better(score, item, this.scores[0]!, this.items[0]!);
  }

  offer(score: number, item: number): void {
    if (this.k === 0) return;
    if (this.n < this.k) {
      this.scores[this.n] = score;
      this.items[this.n] = item;
      this.up(this.n++);
    } else if (this.better(score, item, this.scores[0]!, this.items[0]!)) {
      this.scores[0] = score;
      this.items[0] = item;
      this.down(0);
    }
  }

  /** Every kept pair, in no particular order. */
  forEach(visit: (item: number, score: number) => void): void {
    for (let k = 0; k < this.n; k++) visit(this.items[k]!, this.scores[k]!);
  }

  /** Best first. */
  sorted(): { items: number[]; scores: number[] } {
    const order = Array.from({ length: this.n }, (_, i) => i);
    order.sort((a, b) => (this.better(this.scores[a]!, this.items[a]!, this.scores[b]!, this.items[b]!) ? -1 : 1));
    return { items: order.map((i) => this.items[i]!), scores: order.map((i) => this.scores[i]!) };
  }

  private better(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 > s2 || (s1 === s2 && i1 < i2);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(this.scores[parent]!, this.items[parent]!, this.scores[i]!, this.items[i]!)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.n && this.better(this.scores[worst]!, this.items[worst]!, this.scores[l]!, this.items[l]!)) worst = l;
      if (r < this.n && this.better(this.scores[worst]!, this.items[worst]!, this.scores[r]!, this.items[r]!)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
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
