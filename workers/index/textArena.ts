import type { ByteWriter } from "../../src/recommend/byteWriter.js";
import { ensureLength } from "./growable.js";

/**
 * UTF-8 text per dense id, all of it in one byte buffer: no string per item for the garbage collector to
 * walk, and a page of answers is assembled by copying bytes. A replaced text leaves its old bytes behind;
 * they are compacted away when they are half of the buffer.
 */
export class TextArena {
  private data = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  private live = 0;
  private start = new Int32Array(1024).fill(-1);
  private size = new Int32Array(1024);
  private marks = new Int32Array(1024);

  has(id: number): boolean {
    return id < this.start.length && this.start[id]! >= 0;
  }

  /** Bytes held for `id` (0 when none). */
  length(id: number): number {
    return this.has(id) ? this.size[id]! : 0;
  }

  /** A number kept with id's text (say, where a part of it ends). */
  mark(id: number): number {
    return this.marks[id]!;
  }

  set(id: number, text: string, mark = 0): void {
    this.drop(id);
    this.room(Buffer.byteLength(text));
    this.start = ensureLength(this.start, id + 1, -1);
    this.size = ensureLength(this.size, id + 1);
    this.marks = ensureLength(this.marks, id + 1);
    const n = this.data.write(text, this.used, "utf8");
    this.start[id] = this.used;
    this.size[id] = n;
    this.marks[id] = mark;
    this.used += n;
    this.live += n;
  }

  drop(id: number): void {
    if (!this.has(id)) return;
    this.live -= this.size[id]!;
    this.start[id] = -1;
  }

  /** Writes bytes [from, to) of id's text (all of it by default). */
  writeTo(out: ByteWriter, id: number, from = 0, to = this.length(id)): void {
    const s = this.start[id]!;
    out.bytes(this.data, s + from, s + to);
  }

  private room(n: number): void {
    if (this.used + n <= this.data.length) return;
    // Compact into a buffer with room for twice the live text, so that compaction stays rare.
    const next = Buffer.allocUnsafe(Math.max(this.data.length, 2 * (this.live + n)));
    let at = 0;
    for (let id = 0; id < this.start.length; id++) {
      const s = this.start[id]!;
      if (s < 0) continue;
      this.data.copy(next, at, s, s + this.size[id]!);
      this.start[id] = at;
      at += this.size[id]!;
    }
    this.data = next;
    this.used = at;
  }
}
