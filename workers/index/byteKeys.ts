import { ensureLength } from "./growable.js";

/**
 * Dense ids by the UTF-8 bytes of their text: an open-addressing table over one byte arena. It finds the id of
 * text still inside a packed batch without making a string of it (making it, then hashing it for a Map, cost
 * the recommender thread a sixth of its time at full ingest).
 */
export class ByteKeys {
  /** Per slot: the id (-1: empty) and the hash of its bytes. */
  private table = new Int32Array(2 * 1024).fill(-1);
  private mask = 1023;
  /** Per id: where its bytes start in the arena, and how many there are (-1: not held). */
  private spans = new Int32Array(2 * 1024).fill(-1);
  private arena = new Uint8Array(16 * 1024);
  private used = 0;
  private count = 0;

  /** The id held for `bytes[at, at + n)`, or -1. */
  find(bytes: Uint8Array, at: number, n: number): number {
    const h = hashBytes(bytes, at, n);
    const { table, mask } = this;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const id = table[2 * s]!;
      if (id < 0) return -1;
      if (table[2 * s + 1] === h && this.holds(id, bytes, at, n)) return id;
    }
  }

  /** Holds `bytes[at, at + n)` as the text of `id`, which must not be held yet. */
  add(bytes: Uint8Array, at: number, n: number, id: number): void {
    if (2 * (this.count + 1) > this.mask + 1) this.rehash(2 * (this.mask + 1));
    if (this.used + n > this.arena.length) this.arena = ensureLength(this.arena, this.used + n);
    this.arena.set(bytes.subarray(at, at + n), this.used);
    this.spans = ensureLength(this.spans, 2 * id + 2, -1);
    this.spans[2 * id] = this.used;
    this.spans[2 * id + 1] = n;
    this.used += n;
    this.count++;
    this.place(id, hashBytes(bytes, at, n));
  }

  private holds(id: number, bytes: Uint8Array, at: number, n: number): boolean {
    if (this.spans[2 * id + 1] !== n) return false;
    const { arena } = this;
    for (let i = 0, from = this.spans[2 * id]!; i < n; i++) if (arena[from + i] !== bytes[at + i]) return false;
    return true;
  }

  private place(id: number, h: number): void {
    const { table, mask } = this;
    let s = h & mask;
    while (table[2 * s]! >= 0) s = (s + 1) & mask;
    table[2 * s] = id;
    table[2 * s + 1] = h;
  }

  private rehash(slots: number): void {
    const old = this.table;
    this.table = new Int32Array(2 * slots).fill(-1);
    this.mask = slots - 1;
    for (let s = 0; s < old.length; s += 2) if (old[s]! >= 0) this.place(old[s]!, old[s + 1]!);
  }
}

/** FNV-1a over the bytes. */
function hashBytes(bytes: Uint8Array, at: number, n: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = at; i < at + n; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h;
}
