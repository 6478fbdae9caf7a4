import type { SnapshotReader, SnapshotWriter, TypedCtor } from "./snapshotBytes.js";

/**
 * Variable-length rows (a user's history, an item's co-occurrences) in a few shared typed arrays instead of one
 * JS array per row: no per-row garbage, and the whole store is a handful of allocations. A row that outgrows
 * its block moves to a block twice its size at the end of the slab; the holes moves leave are reclaimed by
 * `compact` once they make up a fifth of the slab. The slab grows by a quarter at a time, so memory stays
 * within about 1.5× of the rows' capacity.
 */
/** The value column's type: a history's event weights are small integers, co-occurrence counts are counts. */
export type ValueArray = Int8Array | Uint16Array | Float32Array;

export interface RowColumns {
  key: Int32Array;
  value: ValueArray;
  /** Empty in a store made without times and kinds (co-occurrence rows need only key and value). */
  time: Uint32Array;
  kind: Uint8Array;
}

type Column = RowColumns[keyof RowColumns];

const FIRST_BLOCK = 4;
const INITIAL_SLOTS = 1 << 16;
const SLAB_GROWTH = 1.25;
const COMPACT_AT_WASTED_SHARE = 0.2;

export class RowStore {
  cols: RowColumns;
  private offset: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private length: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private capacity: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private used = 0;
  private wasted = 0;

  /**
   * `value`: the value column's array type (its range bounds what values can be stored); `timed`: keep a time
   * and a kind per entry (a user's history) besides key and value.
   */
  constructor(
    private readonly maxRow: number,
    private readonly layout: { value: new (n: number) => ValueArray; timed: boolean },
  ) {
    this.cols = this.columns(INITIAL_SLOTS);
  }

  private get timed(): boolean {
    return this.layout.timed;
  }

  private columns(n: number): RowColumns {
    const m = this.timed ? n : 0;
    return { key: new Int32Array(n), value: new this.layout.value(n), time: new Uint32Array(m), kind: new Uint8Array(m) };
  }

  private each(c: RowColumns): Column[] {
    return this.timed ? [c.key, c.value, c.time, c.kind] : [c.key, c.value];
  }

  /** Where row r starts in the columns, and how many entries it holds. */
  start(r: number): number {
    return r < this.offset.length ? this.offset[r]! : 0;
  }

  size(r: number): number {
    return r < this.length.length ? this.length[r]! : 0;
  }

  /**
   * How many of row r's oldest entries the next push drops: none below maxRow; at it, its oldest quarter; a row
   * longer than maxRow (restored from a snapshot taken with a larger one) drops down to that.
   */
  dropsOnPush(r: number): number {
    const n = this.size(r);
    return n < this.maxRow ? 0 : n - this.maxRow + Math.max(1, this.maxRow >> 2);
  }

  /** Appends one entry to row r, first dropping dropsOnPush(r) of its oldest. Returns the slot written. */
  push(r: number, key: number, value: number, time = 0, kind = 0): number {
    this.ensureRow(r);
    const drops = this.dropsOnPush(r);
    if (drops > 0) this.dropOldest(r, drops);
    if (this.length[r] === this.capacity[r]) this.grow(r);
    const slot = this.offset[r]! + this.length[r]!;
    this.length[r]!++;
    const c = this.cols;
    c.key[slot] = key;
    c.value[slot] = value;
    if (this.timed) {
      c.time[slot] = time;
      c.kind[slot] = kind;
    }
    return slot;
  }

  /** Removes the entry at position i of row r (order of the rest kept). */
  removeAt(r: number, i: number): void {
    const start = this.offset[r]!;
    const n = this.length[r]!;
    for (const col of this.each(this.cols)) col.copyWithin(start + i, start + i + 1, start + n);
    this.length[r] = n - 1;
  }

  clear(r: number): void {
    if (r < this.length.length) this.length[r] = 0;
  }

  /** clear(), with the row's entries zeroed in the slab: nothing it held stays readable (an erased user's history). */
  wipe(r: number): void {
    if (r >= this.length.length) return;
    const start = this.offset[r]!;
    const end = start + this.length[r]!;
    for (const col of this.each(this.cols)) col.fill(0, start, end);
    this.length[r] = 0;
  }

  /**
   * Its rows as they are, holes included, each column with the headroom a slab grows by: a restored store takes
   * its rows as written and grows into that room, where a slab restored full copied itself whole at the first row
   * that grew.
   */
  snapshotTo(w: SnapshotWriter): void {
    w.number(this.used);
    w.number(this.wasted);
    w.typed(this.offset);
    w.typed(this.length);
    w.typed(this.capacity);
    const room = Math.max(Math.ceil(this.used * SLAB_GROWTH), INITIAL_SLOTS);
    for (const col of this.each(this.cols)) w.typed(col, this.used, room);
  }

  /** Takes the rows snapshotTo() wrote, in place of its own. */
  restoreFrom(r: SnapshotReader): void {
    this.used = r.number();
    this.wasted = r.number();
    this.offset = r.typed(Int32Array);
    this.length = r.typed(Int32Array);
    this.capacity = r.typed(Int32Array);
    if (this.offset.length !== this.length.length || this.offset.length !== this.capacity.length)
      throw new Error("index snapshot: rows of unequal lengths");
    const slots = Math.max(this.used, INITIAL_SLOTS);
    const key = r.typed(Int32Array, slots);
    const value = r.typed(this.layout.value as TypedCtor<ValueArray>, slots);
    const time = this.timed ? r.typed(Uint32Array, slots) : new Uint32Array(0);
    const kind = this.timed ? r.typed(Uint8Array, slots) : new Uint8Array(0);
    this.cols = { key, value, time, kind };
    if (this.each(this.cols).some((col) => col.length !== key.length)) throw new Error("index snapshot: columns of unequal lengths");
    for (let k = 0; k < this.offset.length; k++) {
      if (this.length[k]! > this.capacity[k]! || this.offset[k]! + this.capacity[k]! > this.used)
        throw new Error("index snapshot: a row past the slab");
    }
  }

  get bytes(): number {
    return this.cols.key.length * (4 + this.cols.value.BYTES_PER_ELEMENT + (this.timed ? 5 : 0)) + this.offset.length * 12;
  }

  /** How many entries row r holds past maxRow (a row restored from a snapshot taken with a larger one), or 0. */
  excess(r: number): number {
    return Math.max(0, this.size(r) - this.maxRow);
  }

  /** Drops row r's `k` oldest entries (order of the rest kept). */
  dropOldest(r: number, k: number): void {
    const start = this.offset[r]!;
    const n = this.length[r]!;
    for (const col of this.each(this.cols)) col.copyWithin(start, start + k, start + n);
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
    if (this.wasted > this.used * COMPACT_AT_WASTED_SHARE && this.used > INITIAL_SLOTS) this.compact();
    this.reserve(cap);
    const from = this.offset[r]!;
    const to = this.used;
    for (const col of this.each(this.cols)) col.copyWithin(to, from, from + this.length[r]!);
    this.offset[r] = to;
    this.capacity[r] = cap;
    this.used += cap;
    this.wasted += oldCap;
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.cols.key.length) return;
    const old = this.cols;
    this.cols = this.columns(Math.ceil(Math.max(this.used + extra, old.key.length) * SLAB_GROWTH));
    const fresh = this.each(this.cols);
    this.each(old).forEach((col, k) => fresh[k]!.set(col.subarray(0, this.used)));
  }

  /**
   * Compacts with every row's capacity cut to its length and no spare slab: for a store that was just built
   * whole (the index loaded from PostgreSQL), whose rows will mostly not grow soon. A row that does grow later
   * moves, as usual.
   */
  trim(): void {
    for (let r = 0; r < this.capacity.length; r++) this.capacity[r] = this.length[r]!;
    this.compact(1);
  }

  /** Rewrites every row into a fresh slab with no holes (each row keeps its capacity). */
  private compact(growth = SLAB_GROWTH): void {
    const old = this.each(this.cols);
    let total = 0;
    for (let r = 0; r < this.capacity.length; r++) total += this.capacity[r]!;
    this.cols = this.columns(Math.max(Math.ceil(total * growth), INITIAL_SLOTS));
    const fresh = this.each(this.cols);
    let at = 0;
    for (let r = 0; r < this.offset.length; r++) {
      const cap = this.capacity[r]!;
      if (cap === 0) continue;
      const from = this.offset[r]!;
      const n = this.length[r]!;
      old.forEach((col, k) => fresh[k]!.set(col.subarray(from, from + n), at));
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
