import { ByteWriter } from "../../src/wire/byteWriter.js";
import { compiled, I32 } from "../wasm/module.js";

/**
 * The thread's rendered item texts, for every catalog it holds, in one WebAssembly memory, with the region a
 * page is assembled in: a page is then a row of `memory.copy` calls (about 20 ns each, 80 with a cache miss)
 * rather than byte loops or typed-array views made per piece (200–550 ns for an item's 150 bytes).
 *
 * Layout: [0, OUT_BYTES) the page being written, [SCRATCH_AT, DATA_AT) text a page repeats, [DATA_AT, …) texts.
 * Texts are appended; when the memory is full the live ones move to a new memory twice their size, so the
 * bytes of replaced texts are reclaimed then.
 */
const OUT_BYTES = 256 * 1024;
const SCRATCH_AT = OUT_BYTES;
const SCRATCH_BYTES = 4096;
const DATA_AT = SCRATCH_AT + SCRATCH_BYTES;
const WASM_PAGE = 65_536;
const FIRST_DATA_BYTES = 256 * 1024;

/** `copy(to, from, n)`: memory.copy within the memory. */
const COPY = compiled({ exportName: "copy", params: [I32, I32, I32], body: [0x00, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 0x0a, 0x00, 0x00] });
if (!COPY) throw new Error("this engine lacks WebAssembly bulk memory (memory.copy)");

type Copy = (to: number, from: number, n: number) => void;

/** What a store needs of each arena it holds: their live texts, to move them when it compacts. */
export interface StoredTexts {
  liveBytes(): number;
  /** Copies every live text to `to` from `at` on (addresses in the new memory) and returns the next free address. */
  moveTo(from: Buffer, to: Buffer, at: number): number;
}

export class TextStore {
  /** The whole memory, valid until the next `allocate`. */
  bytes!: Buffer;
  copy!: Copy;
  private out!: Buffer;
  private used = DATA_AT;
  private readonly holders = new Set<StoredTexts>();
  readonly writer = new StoreWriter(this);

  constructor(dataBytes = FIRST_DATA_BYTES) {
    this.replaceMemory(dataBytes);
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
    this.replaceMemory(Math.max(this.bytes.length - DATA_AT, 2 * (live + n)));
    let at = DATA_AT;
    for (const h of this.holders) at = h.moveTo(old, this.bytes, at);
    this.used = at;
  }

  private replaceMemory(dataBytes: number): void {
    const memory = new WebAssembly.Memory({ initial: Math.ceil((DATA_AT + dataBytes) / WASM_PAGE) });
    this.copy = new WebAssembly.Instance(COPY!, { env: { memory } }).exports.copy as Copy;
    this.bytes = Buffer.from(memory.buffer);
    this.out = this.bytes.subarray(0, OUT_BYTES);
  }
}

/**
 * A ByteWriter over the store's page region that appends stored bytes with memory.copy. A page larger than the
 * region moves to a buffer of its own (ByteWriter's growth) and goes on there with plain copies.
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

/** The store shared by every catalog of this thread (one memory, not one per organisation). */
export function sharedTextStore(): TextStore {
  return (threadStore ??= new TextStore());
}
