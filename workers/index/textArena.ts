import { ensureLength } from "./growable.js";
import { sharedTextStore, type StoredTexts, type StoreWriter, type TextStore } from "./textStore.js";

/** Per id: where its text starts in the store (-1: none), its length, and a mark kept with it. One cache line, not three. */
const START = 0;
const SIZE = 1;
const MARK = 2;
const SLOT = 3;

/**
 * UTF-8 text per dense id, kept in the thread's TextStore (one ArrayBuffer): no string per item for the
 * garbage collector to walk, and a page of answers is assembled by copying bytes within that buffer. A
 * replaced text leaves its old bytes behind until the store compacts.
 */
export class TextArena implements StoredTexts {
  private slots = new Int32Array(1024 * SLOT).fill(-1);
  private live = 0;

  constructor(readonly store: TextStore = sharedTextStore()) {
    store.hold(this);
  }

  has(id: number): boolean {
    return id * SLOT < this.slots.length && this.slots[id * SLOT + START]! >= 0;
  }

  /** Bytes held for `id` (0 when none). */
  length(id: number): number {
    return this.has(id) ? this.slots[id * SLOT + SIZE]! : 0;
  }

  /** A number kept with id's text (say, where a part of it ends). */
  mark(id: number): number {
    return this.slots[id * SLOT + MARK]!;
  }

  /** Stores id's text. This may move every text of the store: a page writes only once its texts are all set. */
  set(id: number, text: string, mark = 0): void {
    this.drop(id);
    const n = Buffer.byteLength(text);
    const at = this.store.allocate(n);
    this.store.bytes.write(text, at, "utf8");
    this.slots = ensureLength(this.slots, (id + 1) * SLOT, -1);
    const s = id * SLOT;
    this.slots[s + START] = at;
    this.slots[s + SIZE] = n;
    this.slots[s + MARK] = mark;
    this.live += n;
  }

  drop(id: number): void {
    if (!this.has(id)) return;
    this.live -= this.slots[id * SLOT + SIZE]!;
    this.slots[id * SLOT + START] = -1;
  }

  /** Appends bytes [from, to) of id's text (all of it by default) to the store's writer. */
  writeTo(out: StoreWriter, id: number, from = 0, to = this.length(id)): void {
    out.stored(this.slots[id * SLOT + START]! + from, to - from);
  }

  /** Bytes [from, to) of id's text, decoded (the id must hold a text). */
  text(id: number, from = 0, to = this.length(id)): string {
    const start = this.slots[id * SLOT + START]!;
    return this.store.bytes.toString("utf8", start + from, start + to);
  }

  liveBytes(): number {
    return this.live;
  }

  moveTo(from: Buffer, to: Buffer, at: number): number {
    const slots = this.slots;
    for (let s = 0; s < slots.length; s += SLOT) {
      const start = slots[s + START]!;
      if (start < 0) continue;
      const n = slots[s + SIZE]!;
      from.copy(to, at, start, start + n);
      slots[s + START] = at;
      at += n;
    }
    return at;
  }
}
