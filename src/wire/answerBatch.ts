import type { Mode, RankResult } from "./rank.js";

/**
 * A shard's answers to the front, laid out by hand instead of packed: per answer a 16-byte head (id, flags,
 * mode, count, the two lengths), then its `results` and `items` bytes. The shard writes each page once into the
 * batch, and the front reads the pages as views of the message it received, so a rendered page is copied once
 * on its way from the shard's memory to the socket. Sent as an ArrayBuffer: every other message is msgpack in a
 * Uint8Array (shardMessages.ts), so the type tells them apart.
 */
const HEAD_BYTES = 16;
const MODES: readonly Mode[] = ["personalized", "contextual", "global", "fallback"];
const FAILED = 1;
const HAS_NEXT = 2;
const START_BYTES = 64 * 1024;

export class AnswerBatch {
  private bytes = new Uint8Array(START_BYTES);
  private view = new DataView(this.bytes.buffer);
  private at = 0;
  private answers = 0;

  get size(): number {
    return this.answers;
  }

  add(id: number, r: RankResult): void {
    const at = this.head(id, r.hasNext ? HAS_NEXT : 0, MODES.indexOf(r.mode), r.count, r.results.length, r.items.length);
    this.bytes.set(r.results, at);
    this.bytes.set(r.items, at + r.results.length);
  }

  /** An answer that could not be ranked (the shard has logged why). */
  fail(id: number): void {
    this.head(id, FAILED, 0, 0, 0, 0);
  }

  /** The answers so far in a buffer of their own, to transfer; the batch starts again empty. */
  take(): ArrayBuffer {
    const out = this.bytes.buffer.slice(0, this.at);
    this.at = 0;
    this.answers = 0;
    return out;
  }

  /** Writes a head and makes room for the bytes after it; returns where they go. */
  private head(id: number, flags: number, mode: number, count: number, resultsBytes: number, itemsBytes: number): number {
    this.room(HEAD_BYTES + resultsBytes + itemsBytes);
    const v = this.view;
    const at = this.at;
    v.setUint32(at, id, true);
    v.setUint8(at + 4, flags);
    v.setUint8(at + 5, mode);
    v.setUint16(at + 6, count, true);
    v.setUint32(at + 8, resultsBytes, true);
    v.setUint32(at + 12, itemsBytes, true);
    this.at = at + HEAD_BYTES + resultsBytes + itemsBytes;
    this.answers++;
    return at + HEAD_BYTES;
  }

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    bigger.set(this.bytes.subarray(0, this.at));
    this.bytes = bigger;
    this.view = new DataView(bigger.buffer);
  }
}

/** Calls `each` with every answer of a batch, in order: its result, or undefined when the shard failed on it. */
export function readAnswers(batch: ArrayBuffer, each: (id: number, result: RankResult | undefined) => void): void {
  const v = new DataView(batch);
  for (let at = 0; at < batch.byteLength;) {
    const id = v.getUint32(at, true);
    const flags = v.getUint8(at + 4);
    const mode = MODES[v.getUint8(at + 5)]!;
    const count = v.getUint16(at + 6, true);
    const resultsBytes = v.getUint32(at + 8, true);
    const itemsBytes = v.getUint32(at + 12, true);
    const from = at + HEAD_BYTES;
    at = from + resultsBytes + itemsBytes;
    if (flags & FAILED) {
      each(id, undefined);
      continue;
    }
    each(id, {
      mode,
      count,
      results: new Uint8Array(batch, from, resultsBytes),
      items: new Uint8Array(batch, from + resultsBytes, itemsBytes),
      hasNext: (flags & HAS_NEXT) !== 0,
    });
  }
}
