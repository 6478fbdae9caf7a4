/**
 * Variable-length rows (a user's history, an item's co-occurrences) in a few shared typed arrays instead of one
 * JS array per row: no per-row garbage, and the whole store is a handful of allocations. A row that outgrows
 * its block moves to a block twice its size at the end of the slab; the hole it leaves is reclaimed by
 * `compact`, which rebuilds run when the wasted share grows large.
 */
export interface RowColumns {
  key: Int32Array;
  value: Float32Array;
  time: Uint32Array;
  kind: Uint8Array;
}

const FIRST_BLOCK = 4;

export class RowStore {
  cols: RowColumns;
  private offset: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private length: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private capacity: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private used = 0;
  private wasted = 0;

  constructor(private readonly maxRow: number, initialSlots = 1 << 16) {
    this.cols = RowStore.columns(initialSlots);
  }

  private static columns(n: number): RowColumns {
    return { key: new Int32Array(n), value: new Float32Array(n), time: new Uint32Array(n), kind: new Uint8Array(n) };
  }

  /** Where row r starts in the columns, and how many entries it holds. */
  start(r: number): number {
    return r < this.offset.length ? this.offset[r]! : 0;
  }

  size(r: number): number {
    return r < this.length.length ? this.length[r]! : 0;
  }

  /** Appends one entry to row r; a full row (maxRow) first drops its oldest quarter. Returns the slot written. */
  push(r: number, key: number, value: number, time: number, kind: number): number {
    this.ensureRow(r);
    if (this.length[r] === this.maxRow) this.dropOldest(r, Math.max(1, this.maxRow >> 2));
    if (this.length[r] === this.capacity[r]) this.grow(r);
    const slot = this.offset[r]! + this.length[r]!;
    this.length[r]!++;
    const c = this.cols;
    c.key[slot] = key;
    c.value[slot] = value;
    c.time[slot] = time;
    c.kind[slot] = kind;
    return slot;
  }

  /** Removes the entry at position i of row r (order of the rest kept). */
  removeAt(r: number, i: number): void {
    const start = this.offset[r]!;
    const n = this.length[r]!;
    const c = this.cols;
    for (const col of [c.key, c.value, c.time, c.kind]) col.copyWithin(start + i, start + i + 1, start + n);
    this.length[r] = n - 1;
  }

  clear(r: number): void {
    if (r < this.length.length) this.length[r] = 0;
  }

  get bytes(): number {
    return this.cols.key.length * 13 + this.offset.length * 12;
  }

  private dropOldest(r: number, k: number): void {
    const start = this.offset[r]!;
    const n = this.length[r]!;
    const c = this.cols;
    for (const col of [c.key, c.value, c.time, c.kind]) col.copyWithin(start, start + k, start + n);
    this.length[r] = n - k;
  }

  private ensureRow(r: number): void {
    if (r >= this.offset.length) {
      let n = this.offset.length;
      while (n <= r) n *= 2;
      this.offset = resize(this.offset, n);
      this.length = resize(this.length, n);
      this.capacity = resize(this.capacity, n);
    }
  }

  private grow(r: number): void {
    const oldCap = this.capacity[r]!;
    const cap = oldCap === 0 ? FIRST_BLOCK : Math.min(oldCap * 2, this.maxRow);
    if (this.wasted > this.used / 2 && this.used > 1 << 16) this.compact();
    this.reserve(cap);
    const from = this.offset[r]!;
    const to = this.used;
    const c = this.cols;
    for (const col of [c.key, c.value, c.time, c.kind]) col.copyWithin(to, from, from + this.length[r]!);
    this.offset[r] = to;
    this.capacity[r] = cap;
    this.used += cap;
    this.wasted += oldCap;
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.cols.key.length) return;
    let n = this.cols.key.length;
    while (n < this.used + extra) n *= 2;
    const old = this.cols;
    this.cols = RowStore.columns(n);
    this.cols.key.set(old.key.subarray(0, this.used));
    this.cols.value.set(old.value.subarray(0, this.used));
    this.cols.time.set(old.time.subarray(0, this.used));
    this.cols.kind.set(old.kind.subarray(0, this.used));
  }

  /** Rewrites every row into a fresh slab with no holes (capacity kept at the next power of two of its length). */
  private compact(): void {
    const old = this.cols;
    let total = 0;
    for (let r = 0; r < this.capacity.length; r++) total += this.capacity[r]!;
    this.cols = RowStore.columns(Math.max(total * 2, 1 << 16));
    let at = 0;
    for (let r = 0; r < this.offset.length; r++) {
      const cap = this.capacity[r]!;
      if (cap === 0) continue;
      const from = this.offset[r]!;
      const n = this.length[r]!;
      this.cols.key.set(old.key.subarray(from, from + n), at);
      this.cols.value.set(old.value.subarray(from, from + n), at);
      this.cols.time.set(old.time.subarray(from, from + n), at);
      this.cols.kind.set(old.kind.subarray(from, from + n), at);
      this.offset[r] = at;
      at += cap;
    }
    this.used = at;
    this.wasted = 0;
  }
}

function resize(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
