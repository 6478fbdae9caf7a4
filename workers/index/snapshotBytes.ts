import { createHash } from "node:crypto";

type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int8Array;
type TypedCtor<T extends Typed> = new (n: number) => T;

/** The bytes of a snapshot are copied this many at a time, so the thread answers requests between two copies. */
const SLICE_BYTES = 4 << 20;

/**
 * Writes an organisation's index as a flat sequence of sections (numbers, texts, typed arrays' prefixes). The
 * sections only point at the live arrays; `copy()` then copies them in slices of SLICE_BYTES, each a step the
 * caller may answer requests between. The caller must not apply a batch until the copy is done (the recommender
 * thread runs it as a job of its batch queue), so the copy is of one moment of the index.
 */
export class SnapshotWriter {
  private readonly sections: Array<Uint8Array> = [];

  number(n: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, n, true);
    this.sections.push(b);
  }

  /** Texts as one JSON array (ids: copied at once, they are small beside the arrays). */
  texts(list: readonly string[]): void {
    const b = Buffer.from(JSON.stringify(list));
    this.number(b.length);
    this.sections.push(b);
  }

  /** The first `n` elements of `a` (they are copied by copy(), not now). */
  typed(a: Typed, n = a.length): void {
    this.number(n);
    this.sections.push(new Uint8Array(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT));
  }

  /** Copies every section into parts of about SLICE_BYTES, yielding after each; returns the parts and their sha256. */
  *copy(): Generator<void, { parts: Buffer[]; bytes: number; sha256: string }> {
    const hash = createHash("sha256");
    const parts: Buffer[] = [];
    let part = Buffer.allocUnsafe(SLICE_BYTES);
    let at = 0;
    let bytes = 0;
    const flush = (): void => {
      const done = part.subarray(0, at);
      hash.update(done);
      parts.push(done);
      part = Buffer.allocUnsafe(SLICE_BYTES);
      at = 0;
    };
    for (const s of this.sections) {
      for (let from = 0; from < s.length;) {
        const n = Math.min(s.length - from, SLICE_BYTES - at);
        part.set(s.subarray(from, from + n), at);
        at += n;
        from += n;
        bytes += n;
        if (at === SLICE_BYTES) {
          flush();
          yield;
        }
      }
    }
    if (at > 0) flush();
    return { parts, bytes, sha256: hash.digest("hex") };
  }
}

/** Reads what a SnapshotWriter wrote, in the same order; throws on bytes that end early. */
export class SnapshotReader {
  private at = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Buffer) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  number(): number {
    this.need(8);
    const n = this.view.getFloat64(this.at, true);
    this.at += 8;
    return n;
  }

  texts(): string[] {
    const n = this.count();
    this.need(n);
    const list = JSON.parse(this.bytes.toString("utf8", this.at, this.at + n)) as unknown;
    this.at += n;
    if (!Array.isArray(list) || !list.every((s) => typeof s === "string")) throw new Error("index snapshot: texts expected");
    return list as string[];
  }

  /** An array of `ctor` with room for at least `minLength` elements, its first ones those written. */
  typed<T extends Typed>(ctor: TypedCtor<T>, minLength = 0): T {
    const n = this.count();
    const size = n * (ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
    this.need(size);
    const out = new ctor(Math.max(n, minLength));
    new Uint8Array(out.buffer, 0, size).set(this.bytes.subarray(this.at, this.at + size));
    this.at += size;
    return out;
  }

  get done(): boolean {
    return this.at === this.bytes.length;
  }

  private count(): number {
    const n = this.number();
    if (!Number.isSafeInteger(n) || n < 0) throw new Error("index snapshot: a bad length");
    return n;
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length) throw new Error("index snapshot: ends early");
  }
}

export function sha256(parts: readonly Buffer[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p);
  return hash.digest("hex");
}
