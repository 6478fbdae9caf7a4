/**
 * Text written straight into one reusable byte buffer: a recommend answer is assembled from pieces already
 * held as UTF-8 (each item's rendered text) and short new ones, then sent or copied once. The buffer is
 * reused by the next answer, so a caller copies out (`copy`) what it keeps and sends `view` at once.
 */
/** Below this many bytes a plain loop beats making the view a native copy needs. */
const SHORT_COPY = 48;

export class ByteWriter {
  protected buf: Buffer = Buffer.allocUnsafe(16 * 1024);
  protected at = 0;

  reset(): this {
    this.at = 0;
    return this;
  }

  get length(): number {
    return this.at;
  }

  /** Text that is ASCII in the common case (JSON punctuation, numbers, ids); anything else is encoded properly. */
  text(s: string): this {
    const n = s.length;
    this.room(n);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.at = at;
        this.room((n - i) * 3);
        this.at += this.buf.write(s.slice(i), this.at, "utf8");
        return this;
      }
      buf[at++] = c;
    }
    this.at = at;
    return this;
  }

  /** `s` in UTF-8 after its length in bytes (4, big-endian), as a binary COPY field. */
  sizedText(s: string): this {
    this.room(4);
    const lengthAt = this.at;
    this.at += 4;
    this.text(s);
    this.buf.writeUInt32BE(this.at - lengthAt - 4, lengthAt);
    return this;
  }

  /** `s` as a JSON string literal, quotes included: plain ASCII is copied, anything needing escapes goes through JSON.stringify. */
  jsonString(s: string): this {
    const n = s.length;
    this.room(n + 2);
    const buf = this.buf;
    let at = this.at;
    buf[at++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return this.text(JSON.stringify(s));
      buf[at++] = c;
    }
    buf[at++] = 0x22;
    this.at = at;
    return this;
  }

  /** One byte. */
  byte(b: number): this {
    this.room(1);
    this.buf[this.at++] = b;
    return this;
  }

  /** Big-endian, as msgpack and PostgreSQL's binary COPY write numbers. */
  uint16(n: number): this {
    this.room(2);
    this.at = this.buf.writeUInt16BE(n, this.at);
    return this;
  }

  /** Big-endian, as msgpack and PostgreSQL's binary COPY write numbers. */
  uint32(n: number): this {
    this.room(4);
    this.at = this.buf.writeUInt32BE(n, this.at);
    return this;
  }

  float64(n: number): this {
    this.room(8);
    this.at = this.buf.writeDoubleBE(n, this.at);
    return this;
  }

  /** A whole number in decimal, without building its text. */
  int(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) return this.text(String(n));
    this.room(16);
    const buf = this.buf;
    let digits = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++;
    let at = this.at + digits;
    this.at = at;
    do {
      buf[--at] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
    return this;
  }

  bytes(src: Uint8Array, from = 0, to = src.length): this {
    const n = to - from;
    this.room(n);
    if (n > SHORT_COPY) {
      this.buf.set(src.subarray(from, to), this.at);
      this.at += n;
      return this;
    }
    const buf = this.buf;
    let at = this.at;
    for (let i = from; i < to; i++) buf[at++] = src[i]!;
    this.at = at;
    return this;
  }

  /** The bytes written so far, valid until the next write: for sending at once. */
  view(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** The bytes written so far as a plain Uint8Array over the buffer, valid until the next write: for copying once into where they go. */
  lent(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.at);
  }

  /** The bytes written so far, in a buffer of their own: for keeping or passing on. */
  copy(): Uint8Array {
    // Into a plain Uint8Array: slicing the Buffer would construct a Buffer, which costs more than the copy.
    const out = new Uint8Array(this.at);
    out.set(new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.at));
    return out;
  }

  protected room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}
