import { ensureLength } from "./growable.js";

/**
 * Dense ids by the UTF-8 bytes of their text: an open-addressing table over one byte arena. It finds the id of
 * text still inside a packed batch without making a string of it (making it, then hashing it for a Map, cost
 * the recommender thread a sixth of its time at full ingest).
 */
export class ByteKeys {
  /**
   * Per slot, SLOT ints: the id (-1: empty), the hash of its bytes, and where they start in the arena and how
   * many there are. The span lives in the slot, so a lookup reads the slot and the bytes: two places in memory
   * where a table of ids and another of spans took three (a request of 500 `candidates` finds 500 ids, each
   * a few cache misses on a catalog of 100,000).
   */
  private table = new Int32Array(SLOT * 1024).fill(-1);
  private mask = 1023;
  private arena = new Uint8Array(16 * 1024);
  private used = 0;
  private count = 0;

  /** The id held for `bytes[at, at + n)`, or -1. */
  find(bytes: Uint8Array, at: number, n: number): number {
    const h = hashBytes(bytes, at, n);
    const { table, mask } = this;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const slot = SLOT * s;
      const id = table[slot]!;
      if (id < 0) return -1;
      if (table[slot + 1] === h && table[slot + 3] === n && this.holds(table[slot + 2]!, bytes, at, n)) return id;
    }
  }

  /** Holds `bytes[at, at + n)` as the text of `id`, which must not be held yet. */
  add(bytes: Uint8Array, at: number, n: number, id: number): void {
    if (2 * (this.count + 1) > this.mask + 1) this.rehash(2 * (this.mask + 1));
    if (this.used + n > this.arena.length) this.arena = ensureLength(this.arena, this.used + n);
    this.arena.set(bytes.subarray(at, at + n), this.used);
    this.place(this.table, this.mask, id, hashBytes(bytes, at, n), this.used, n);
    this.used += n;
    this.count++;
  }

  /** Whether the arena holds `bytes[at, at + n)` from `from`. */
  private holds(from: number, bytes: Uint8Array, at: number, n: number): boolean {
    const { arena } = this;
    for (let i = 0; i < n; i++) if (arena[from + i] !== bytes[at + i]) return false;
    return true;
  }

  private place(table: Int32Array, mask: number, id: number, h: number, from: number, n: number): void {
    let s = h & mask;
    while (table[SLOT * s]! >= 0) s = (s + 1) & mask;
    const slot = SLOT * s;
    table[slot] = id;
    table[slot + 1] = h;
    table[slot + 2] = from;
    table[slot + 3] = n;
  }

  private rehash(slots: number): void {
    const old = this.table;
    const table = new Int32Array(SLOT * slots).fill(-1);
    const mask = slots - 1;
    for (let s = 0; s < old.length; s += SLOT) if (old[s]! >= 0) this.place(table, mask, old[s]!, old[s + 1]!, old[s + 2]!, old[s + 3]!);
    this.table = table;
    this.mask = mask;
  }
}

/** Ints per slot of the table: id, hash, arena offset, length. */
const SLOT = 4;

/** FNV-1a over the bytes. */
function hashBytes(bytes: Uint8Array, at: number, n: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = at; i < at + n; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}
