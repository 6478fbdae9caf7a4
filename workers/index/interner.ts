import { utf8Text } from "../../src/wire/msgpackCursor.js";
import { ByteKeys } from "./byteKeys.js";

/** String ids ↔ dense integer ids (0, 1, 2, …), so that the index works on typed arrays. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  /** The same ids by their UTF-8 bytes, for text read in place from packed batches; filled as such text comes. */
  private readonly byBytes = new ByteKeys();

  get size(): number {
    return this.names.length;
  }

  /** The integer id of `name`, or -1 when it was never seen. */
  find(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  /** The integer id of `name`, assigning the next one when it is new. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** intern() for the text whose UTF-8 bytes are `bytes[at, at + n)`; makes a string only for text new to it. */
  internBytes(bytes: Uint8Array, at: number, n: number): number {
    let id = this.byBytes.find(bytes, at, n);
    if (id < 0) {
      id = this.intern(utf8Text(bytes, at, n));
      this.byBytes.add(bytes, at, n, id);
    }
    return id;
  }

  /**
   * find() for the text whose UTF-8 bytes are `bytes[at, at + n)`. A name known by its bytes costs no string; one
   * interned as a string is looked up once as text and then held by its bytes as well (a catalog restored from a
   * snapshot, or read from PostgreSQL, holds its ids as strings). An unknown name makes its string every time.
   */
  findBytes(bytes: Uint8Array, at: number, n: number): number {
    let id = this.byBytes.find(bytes, at, n);
    if (id < 0) {
      id = this.find(utf8Text(bytes, at, n));
      if (id >= 0) this.byBytes.add(bytes, at, n, id);
    }
    return id;
  }

  /** The names in id order: interning them again in that order gives every one its id back. */
  restoreFrom(names: readonly string[]): void {
    if (this.names.length > 0) throw new Error("index snapshot: restored into an index in use");
    for (const n of names) this.intern(n);
    if (this.names.length !== names.length) throw new Error("index snapshot: a name twice");
  }

  name(id: number): string {
    return this.names[id]!;
  }
}
