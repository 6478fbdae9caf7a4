import { createHash } from "node:crypto";

type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | Int8Array;
export interface TypedCtor<T extends Typed> {
  new (n: number): T;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** The bytes of a snapshot are copied this many at a time, so the thread answers requests between two copies. */
const SLICE_BYTES = 4 << 20;

/**
 * Writes an organisation's index as a flat sequence of sections (numbers, texts, typed arrays' prefixes), each
 * after its length in bytes, so that a reader can cut the stream into sections without knowing what they hold
 * and give each its own memory as its bytes arrive. The sections only point at the live arrays; `copy()` then
 * copies them in slices of SLICE_BYTES, each a step the caller may answer requests between. The caller must not
 * apply a batch until the copy is done (the recommender thread runs it as a job of its batch queue), so the copy
 * is of one moment of the index.
 */
export class SnapshotWriter {
  private readonly sections: Array<Uint8Array> = [];

  number(n: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, n, true);
    this.section(b);
  }

  /** Texts as one JSON array (ids: copied at once, they are small beside the arrays). */
  texts(list: readonly string[]): void {
    this.section(Buffer.from(JSON.stringify(list)));
  }

  /**
   * The first `n` elements of `a` (they are copied by copy(), not now); `room`: how many elements the restored
   * array is to have room for (a store that grows gets its headroom at once, not by a copy of it all later).
   */
  typed(a: Typed, n = a.length, room = n): void {
    this.section(new Uint8Array(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT), Math.max(n, room) * a.BYTES_PER_ELEMENT);
  }

  private section(bytes: Uint8Array, roomBytes = bytes.length): void {
    const header = new Uint8Array(SECTION_HEADER);
    const view = new DataView(header.buffer);
    view.setFloat64(0, bytes.length, true);
    view.setFloat64(8, roomBytes, true);
    this.sections.push(header, bytes);
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

/** Each section's length in bytes and the room its memory is to have, two float64 (as every number of a snapshot). */
const SECTION_HEADER = 16;
/**
 * The room sections ask for past their lengths adds up to at most the snapshot's size and this much (the least
 * room of an empty organisation's stores): a broken header (the checksum is known only at the end) cannot ask for more.
 */
const EXTRA_ROOM_SLACK_BYTES = 16 << 20;

/**
 * Cuts a snapshot's bytes, fed in pieces cut anywhere, into its sections, each copied once into memory of its
 * own as it arrives: a restore then uses the sections as they are (an array a view of its section) instead of
 * copying them out of one buffer of the whole snapshot (which would touch every byte's memory twice). No section, and
 * no sum of them, goes past `total`, the snapshot's stated size.
 */
export class SnapshotSections {
  private readonly sections: Uint8Array[] = [];
  private readonly header = new Uint8Array(SECTION_HEADER);
  private headerAt = 0;
  private current: Uint8Array | undefined;
  private currentAt = 0;
  private seen = 0;
  private extraRoom = 0;

  constructor(private readonly total: number) {}

  push(piece: Uint8Array): void {
    if (this.seen + piece.length > this.total) throw new Error("index snapshot: more bytes than its stated size");
    this.seen += piece.length;
    let at = 0;
    while (at < piece.length) {
      if (!this.current) {
        const n = Math.min(SECTION_HEADER - this.headerAt, piece.length - at);
        this.header.set(piece.subarray(at, at + n), this.headerAt);
        this.headerAt += n;
        at += n;
        if (this.headerAt < SECTION_HEADER) return;
        this.headerAt = 0;
        const view = new DataView(this.header.buffer);
        const length = view.getFloat64(0, true);
        const room = view.getFloat64(8, true);
        if (!Number.isSafeInteger(length) || length < 0 || length > this.total - this.seen + (piece.length - at))
          throw new Error("index snapshot: a section longer than what is left of it");
        this.extraRoom += room - length;
        if (!Number.isSafeInteger(room) || room < length || this.extraRoom > this.total + EXTRA_ROOM_SLACK_BYTES)
          throw new Error("index snapshot: a section's room out of bounds");
        this.begin(length, room);
        continue;
      }
      const n = Math.min(this.current.length - this.currentAt, piece.length - at);
      this.current.set(piece.subarray(at, at + n), this.currentAt);
      this.currentAt += n;
      at += n;
      if (this.currentAt === this.current.length) this.current = undefined;
    }
  }

  /** The sections, once every byte came; throws when the bytes ended inside one. */
  end(): SnapshotReader {
    if (this.seen !== this.total || this.current || this.headerAt > 0) throw new Error("index snapshot: ends early");
    return new SnapshotReader(this.sections);
  }

  private begin(length: number, room: number): void {
    // Memory past `length` stays untouched (and unresident) until the index grows into it.
    const section = new Uint8Array(new ArrayBuffer(room), 0, length);
    this.sections.push(section);
    this.current = length > 0 ? section : undefined;
    this.currentAt = 0;
  }
}

/** Reads what a SnapshotWriter wrote, section by section in the same order; throws on sections that do not read. */
export class SnapshotReader {
  private next = 0;

  constructor(private readonly sections: readonly Uint8Array[]) {}

  /** A snapshot's bytes in one buffer (a test's, or one read whole). */
  static of(bytes: Uint8Array): SnapshotReader {
    const sections = new SnapshotSections(bytes.length);
    sections.push(bytes);
    return sections.end();
  }

  number(): number {
    const s = this.section();
    if (s.length !== 8) throw new Error("index snapshot: a number expected");
    return new DataView(s.buffer, s.byteOffset, 8).getFloat64(0, true);
  }

  texts(): string[] {
    const s = this.section();
    const list = JSON.parse(Buffer.from(s.buffer, s.byteOffset, s.length).toString("utf8")) as unknown;
    if (!Array.isArray(list) || !list.every((t) => typeof t === "string")) throw new Error("index snapshot: texts expected");
    return list as string[];
  }

  /**
   * An array of `ctor` with room for at least `minLength` elements, its first ones those written: a view of the
   * section's memory (as long as the writer asked room for) when that is long enough, else a copy.
   */
  typed<T extends Typed>(ctor: TypedCtor<T>, minLength = 0): T {
    const s = this.section();
    const size = ctor.BYTES_PER_ELEMENT;
    if (s.length % size !== 0 || s.buffer.byteLength % size !== 0 || s.byteOffset !== 0)
      throw new Error("index snapshot: a section that is no whole number of elements");
    const n = s.length / size;
    const room = s.buffer.byteLength / size;
    if (room >= minLength) return new ctor(s.buffer, 0, room);
    const out = new ctor(Math.max(n, minLength));
    new Uint8Array(out.buffer, 0, s.length).set(s);
    return out;
  }

  get done(): boolean {
    return this.next === this.sections.length;
  }

  private section(): Uint8Array {
    const s = this.sections[this.next++];
    if (!s) throw new Error("index snapshot: ends early");
    return s;
  }
}

export function sha256(parts: readonly Buffer[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p);
  return hash.digest("hex");
}
