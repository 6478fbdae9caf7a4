/**
 * A list of ids as one block of bytes: how many there are, each one's length in UTF-8 bytes, then their UTF-8
 * one after the other, in the list's order, duplicates kept (the count and the lengths 2 bytes each, big-endian:
 * an identifier is at most 256 UTF-16 units, 768 bytes). A request's `candidates` (up to 500 ids) travel to its
 * shard so: one binary value for msgpack to copy instead of as many strings to pack and decode one by one, and
 * the shard finds each id in its catalog by its bytes (workers/index/interner.ts, findBytes) without making a
 * string of it.
 */
const U16_MAX = 0xffff;
const encoder = new TextEncoder();
/** For lists that are not all ASCII: reused by every such list packed on the thread (copied out of it). */
let scratch = Buffer.allocUnsafe(16 * 1024);

export function packIdList(ids: readonly string[]): Uint8Array {
  const count = ids.length;
  if (count > U16_MAX) throw new Error(`id list: ${count} ids`);
  const textAt = 2 + 2 * count;
  // Ids are mostly ASCII: then one string encoded at once holds them all, each as many bytes as it has units.
  const joined = ids.join("");
  const out = new Uint8Array(textAt + joined.length);
  const { read, written } = encoder.encodeInto(joined, out.subarray(textAt));
  if (read !== joined.length || written !== joined.length) return packSpelled(ids);
  out[0] = count >>> 8;
  out[1] = count & 0xff;
  for (let k = 0, at = 2; k < count; k++, at += 2) {
    const n = ids[k]!.length;
    if (n > U16_MAX) throw new Error(`id list: an id of ${n} bytes`);
    out[at] = n >>> 8;
    out[at + 1] = n & 0xff;
  }
  return out;
}

/** packIdList() for a list with an id beyond ASCII: each id encoded on its own, for its length in bytes. */
function packSpelled(ids: readonly string[]): Uint8Array {
  const count = ids.length;
  const textAt = 2 + 2 * count;
  // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair's 4 bytes are 2 per unit).
  let room = textAt;
  for (let k = 0; k < count; k++) room += 3 * ids[k]!.length;
  if (room > scratch.length) scratch = Buffer.allocUnsafe(Math.max(room, 2 * scratch.length));
  const buf = scratch;
  buf[0] = count >>> 8;
  buf[1] = count & 0xff;
  let p = textAt;
  for (let k = 0, at = 2; k < count; k++, at += 2) {
    const n = buf.write(ids[k]!, p, "utf8");
    if (n > U16_MAX) throw new Error(`id list: an id of ${n} bytes`);
    buf[at] = n >>> 8;
    buf[at + 1] = n & 0xff;
    p += n;
  }
  const out = new Uint8Array(p);
  out.set(new Uint8Array(buf.buffer, buf.byteOffset, p));
  return out;
}

/** Reads an id list in place: after each next() that returns true, the id is `bytes[at, at + n)`. */
export class IdListReader {
  bytes: Uint8Array = new Uint8Array(0);
  at = 0;
  n = 0;
  private count = 0;
  private k = 0;

  /** Reads `bytes` from its first id. Throws on a block too short for its lengths. */
  open(bytes: Uint8Array): this {
    if (bytes.length < 2) throw new Error("id list: no count");
    this.bytes = bytes;
    this.count = (bytes[0]! << 8) | bytes[1]!;
    if (bytes.length < 2 + 2 * this.count) throw new Error("id list: its lengths cut short");
    this.k = 0;
    this.at = 2 + 2 * this.count;
    this.n = 0;
    return this;
  }

  /** Moves to the next id; false past the last. Throws on an id that runs past the block. */
  next(): boolean {
    if (this.k === this.count) return false;
    const b = this.bytes;
    const lengthAt = 2 + 2 * this.k++;
    const at = this.at + this.n;
    const n = (b[lengthAt]! << 8) | b[lengthAt + 1]!;
    if (at + n > b.length) throw new Error("id list: an id runs past the end");
    this.at = at;
    this.n = n;
    return true;
  }
}
