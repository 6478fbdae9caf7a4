import { ByteWriter } from "../../src/wire/byteWriter.js";

/**
 * The thread's rendered item texts, for every catalog it holds, in one ArrayBuffer, with the region a page is
 * assembled in: a page is then a row of copies within that buffer, with no typed-array view made per piece (a
 * `subarray` per copy costs more than the copy).
 *
 * Layout: [0, OUT_BYTES) the page being written, [SCRATCH_AT, DATA_AT) text a page repeats, [DATA_AT, …) texts.
 * Texts are appended; when the buffer is full the live ones move to a new buffer twice their size, so the
 * bytes of replaced texts are reclaimed then.
 */
const OUT_BYTES = 256 * 1024;
const SCRATCH_AT = OUT_BYTES;
const SCRATCH_BYTES = 4096;
const DATA_AT = SCRATCH_AT + SCRATCH_BYTES;
const FIRST_DATA_BYTES = 256 * 1024;
/**
 * From this many bytes on, a copy goes to the engine's native copyWithin; below, to eight bytes a step read and
 * written through a DataView, which the compiler turns into plain loads and stores while copyWithin's fixed
 * cost of a call out of the compiled code is larger than the copy (see bench/benchmarks/textCopy.ts).
 */
const NATIVE_COPY = 32;

/** What a store needs of each arena it holds: their live texts, to move them when it compacts. */
export interface StoredTexts {
  liveBytes(): number;
  /** Copies every live text to `to` from `at` on (addresses in the new buffer) and returns the next free address. */
  moveTo(from: Buffer, to: Buffer, at: number): number;
}

export class TextStore {
  /** The whole buffer, valid until the next `allocate`. */
  bytes!: Buffer;
  private view!: DataView;
  private out!: Buffer;
  private used = DATA_AT;
  private readonly holders = new Set<StoredTexts>();
  readonly writer = new StoreWriter(this);

  constructor(dataBytes = FIRST_DATA_BYTES) {
    this.replaceBuffer(dataBytes);
  }

  hold(texts: StoredTexts): void {
    this.holders.add(texts);
  }

  /** The page region, as a buffer: where `writer` writes. */
  outRegion(): Buffer {
    return this.out;
  }

  /** The address of `n` new bytes. May move every held text (then each holder's moveTo has run). */
  allocate(n: number): number {
    if (this.used + n > this.bytes.length) this.compact(n);
    const at = this.used;
    this.used += n;
    return at;
  }

  /** Copies bytes [from, from + n) to `to`, within the buffer; the two ranges never overlap (page region, texts). */
  copy(to: number, from: number, n: number): void {
    if (n >= NATIVE_COPY) {
      this.bytes.copyWithin(to, from, from + n);
      return;
    }
    const view = this.view;
    let i = 0;
    for (; i + 8 <= n; i += 8) {
      const low = view.getUint32(from + i, true);
      const high = view.getUint32(from + i + 4, true);
      view.setUint32(to + i, low, true);
      view.setUint32(to + i + 4, high, true);
    }
    const bytes = this.bytes;
    for (; i < n; i++) bytes[to + i] = bytes[from + i]!;
  }

  /** Writes `text` (UTF-8) to the scratch region: its length there, or -1 when it does not fit. */
  scratch(text: string): number {
    if (text.length * 3 > SCRATCH_BYTES) return -1;
    return this.bytes.write(text, SCRATCH_AT, "utf8");
  }

  get scratchAt(): number {
    return SCRATCH_AT;
  }

  private compact(n: number): void {
    let live = 0;
    for (const h of this.holders) live += h.liveBytes();
    const old = this.bytes;
    this.replaceBuffer(Math.max(this.bytes.length - DATA_AT, 2 * (live + n)));
    let at = DATA_AT;
    for (const h of this.holders) at = h.moveTo(old, this.bytes, at);
    this.used = at;
  }

  private replaceBuffer(dataBytes: number): void {
    const buffer = new ArrayBuffer(DATA_AT + dataBytes);
    this.bytes = Buffer.from(buffer);
    this.view = new DataView(buffer);
    this.out = this.bytes.subarray(0, OUT_BYTES);
  }
}

/**
 * A ByteWriter over the store's page region that appends stored bytes by copies within the store. A page larger
 * than the region moves to a buffer of its own (ByteWriter's growth) and goes on there with plain copies.
 */
export class StoreWriter extends ByteWriter {
  constructor(private readonly store: TextStore) {
    super();
  }

  override reset(): this {
    this.buf = this.store.outRegion();
    this.at = 0;
    return this;
  }

  /** Appends the store's bytes [from, from + n). */
  stored(from: number, n: number): this {
    this.room(n);
    if (this.buf === this.store.outRegion()) this.store.copy(this.at, from, n);
    else this.buf.set(this.store.bytes.subarray(from, from + n), this.at);
    this.at += n;
    return this;
  }
}

let threadStore: TextStore | undefined;

/** The store shared by every catalog of this thread (one buffer, not one per organisation). */
export function sharedTextStore(): TextStore {
  return (threadStore ??= new TextStore());
}
