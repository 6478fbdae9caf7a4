/**
 * Reads msgpack in place, value by value, without building JavaScript values: enough of the format for the
 * writer to turn a packed batch into a COPY message and for a shard to apply it, leaving strings as bytes.
 * Throws on a byte it does not expect.
 */
export class MsgpackCursor {
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    public at = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  isNil(): boolean {
    return this.bytes[this.at] === 0xc0;
  }

  mapLength(): number {
    const b = this.bytes[this.at++]!;
    if (b >= 0x80 && b <= 0x8f) return b & 0x0f;
    if (b === 0xde) return this.u16();
    if (b === 0xdf) return this.u32();
    throw unexpected(b, "a map");
  }

  arrayLength(): number {
    const b = this.bytes[this.at++]!;
    if (b >= 0x90 && b <= 0x9f) return b & 0x0f;
    if (b === 0xdc) return this.u16();
    if (b === 0xdd) return this.u32();
    throw unexpected(b, "an array");
  }

  /** The byte length of the string that starts here, leaving the cursor on its first byte; -1 for nil. */
  stringLength(): number {
    const b = this.bytes[this.at++]!;
    if (b >= 0xa0 && b <= 0xbf) return b & 0x1f;
    if (b === 0xd9) return this.bytes[this.at++]!;
    if (b === 0xda) return this.u16();
    if (b === 0xdb) return this.u32();
    if (b === 0xc0) return -1;
    throw unexpected(b, "a string");
  }

  /** An integer, or a float64; undefined (cursor unmoved) for anything else, float32 included. */
  number(): number | undefined {
    const b = this.bytes[this.at]!;
    if (b <= 0x7f) return this.bytes[this.at++]!;
    if (b >= 0xe0) return this.bytes[this.at++]! - 0x100;
    const v = this.view;
    const at = this.at + 1;
    let n: number;
    let size: number;
    switch (b) {
      case 0xcc:
        n = v.getUint8(at);
        size = 1;
        break;
      case 0xcd:
        n = v.getUint16(at);
        size = 2;
        break;
      case 0xce:
        n = v.getUint32(at);
        size = 4;
        break;
      case 0xcf:
        n = Number(v.getBigUint64(at));
        size = 8;
        break;
      case 0xd0:
        n = v.getInt8(at);
        size = 1;
        break;
      case 0xd1:
        n = v.getInt16(at);
        size = 2;
        break;
      case 0xd2:
        n = v.getInt32(at);
        size = 4;
        break;
      case 0xd3:
        n = Number(v.getBigInt64(at));
        size = 8;
        break;
      case 0xcb:
        n = v.getFloat64(at);
        size = 8;
        break;
      default:
        return undefined;
    }
    this.at = at + size;
    return n;
  }

  /** A string decoded (for map keys). */
  string(): string {
    const n = this.stringLength();
    if (n < 0) throw unexpected(0xc0, "a string");
    const s = utf8Text(this.bytes, this.at, n);
    this.at += n;
    return s;
  }

  /** Moves past one value of any type. */
  skip(): void {
    const b = this.bytes[this.at++]!;
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return;
    if (b >= 0x80 && b <= 0x8f) return this.skipValues(2 * (b & 0x0f));
    if (b >= 0x90 && b <= 0x9f) return this.skipValues(b & 0x0f);
    if (b >= 0xa0 && b <= 0xbf) return void (this.at += b & 0x1f);
    const fixed = FIXED_SIZES[b];
    if (fixed !== undefined) return void (this.at += fixed);
    switch (b) {
      // pass() gets the length first: `this.at += this.u16()` would add it to `at` as it was before u16 moved on.
      case 0xc4:
      case 0xd9:
        return this.pass(this.bytes[this.at++]!);
      case 0xc5:
      case 0xda:
        return this.pass(this.u16());
      case 0xc6:
      case 0xdb:
        return this.pass(this.u32());
      case 0xc7:
        return this.pass(1 + this.bytes[this.at++]!);
      case 0xc8:
        return this.pass(1 + this.u16());
      case 0xc9:
        return this.pass(1 + this.u32());
      case 0xdc:
        return this.skipValues(this.u16());
      case 0xdd:
        return this.skipValues(this.u32());
      case 0xde:
        return this.skipValues(2 * this.u16());
      case 0xdf:
        return this.skipValues(2 * this.u32());
      default:
        throw unexpected(b, "a value");
    }
  }

  private pass(bytes: number): void {
    this.at += bytes;
  }

  private skipValues(n: number): void {
    for (let i = 0; i < n; i++) this.skip();
  }

  private u16(): number {
    const n = this.view.getUint16(this.at);
    this.at += 2;
    return n;
  }

  private u32(): number {
    const n = this.view.getUint32(this.at);
    this.at += 4;
    return n;
  }
}

/** Bytes after the type byte for the fixed-size types: numbers and fixext (type byte + data). */
const FIXED_SIZES: Record<number, number> = {
  0xca: 4,
  0xcb: 8,
  0xcc: 1,
  0xcd: 2,
  0xce: 4,
  0xcf: 8,
  0xd0: 1,
  0xd1: 2,
  0xd2: 4,
  0xd3: 8,
  0xd4: 2,
  0xd5: 3,
  0xd6: 5,
  0xd7: 9,
  0xd8: 17,
};

/** The text whose UTF-8 bytes are `bytes[at, at + n)`. */
export function utf8Text(bytes: Uint8Array, at: number, n: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + at, n).toString("utf8");
}

/** Whether `bytes[at, at + n)` and `bytes[otherAt, otherAt + otherN)` hold the same bytes. */
export function sameBytes(bytes: Uint8Array, at: number, n: number, otherAt: number, otherN: number): boolean {
  if (n !== otherN) return false;
  for (let i = 0; i < n; i++) if (bytes[at + i] !== bytes[otherAt + i]) return false;
  return true;
}

function unexpected(b: number, wanted: string): Error {
  return new Error(`msgpack: byte 0x${b.toString(16)} where ${wanted} was expected`);
}
