import type { Attributes } from "./attributeIndex.js";
import { ensureLength } from "./growable.js";
import { hashName52, hashPair52 } from "./stringHash.js";

/** Kinds hashed into a value's key: the string "true" and the boolean true are different values. */
export const VALUE_KIND = { string: 1, boolean: 2 } as const;

/** Per item: where its run starts in `data` (-1: none), its keys, then its (name, number) pairs. */
const START = 0;
const KEYS = 1;
const PAIRS = 2;
const SLOT = 3;

/**
 * What filters read of each item's attributes (CONTRACT 5: equality, any-of, numeric range; an array matches
 * when it holds a wanted value), as numbers in one Float64Array instead of parsed objects: per item, a run of
 * its text and boolean values as sorted 52-bit hashes of (kind, name, value), then its numbers as sorted
 * (hash of name, value) pairs. A filter is then a few binary searches per item, however long its arrays, and
 * a value costs 8 bytes (16 for a number) whatever its length. Two values sharing a hash (about one pair in
 * 2^52) would match each other's filters. Replaced runs stay behind until the data compacts (when they
 * outweigh the live ones).
 */
export class AttributeValues {
  private data = new Float64Array(1024);
  private used = 0;
  private live = 0;
  private slots = new Int32Array(1024 * SLOT).fill(-1);
  private readonly keys: number[] = [];
  private readonly pairs: [number, number][] = [];

  /** Bytes held for the item's values (0 when none). */
  bytes(item: number): number {
    if (!this.has(item)) return 0;
    const s = item * SLOT;
    return (this.slots[s + KEYS]! + 2 * this.slots[s + PAIRS]!) * 8;
  }

  /** The bytes set(item, attributes) would hold. */
  set(item: number, attributes: Attributes): void {
    this.drop(item);
    this.collect(attributes);
    const nKeys = this.keys.length;
    const nPairs = this.pairs.length;
    const n = nKeys + 2 * nPairs;
    if (n === 0) return;
    const at = this.allocate(n);
    const data = this.data;
    for (let k = 0; k < nKeys; k++) data[at + k] = this.keys[k]!;
    for (let k = 0; k < nPairs; k++) {
      data[at + nKeys + 2 * k] = this.pairs[k]![0];
      data[at + nKeys + 2 * k + 1] = this.pairs[k]![1];
    }
    this.slots = ensureLength(this.slots, (item + 1) * SLOT, -1);
    const s = item * SLOT;
    this.slots[s + START] = at;
    this.slots[s + KEYS] = nKeys;
    this.slots[s + PAIRS] = nPairs;
    this.live += n;
  }

  drop(item: number): void {
    if (!this.has(item)) return;
    const s = item * SLOT;
    this.live -= this.slots[s + KEYS]! + 2 * this.slots[s + PAIRS]!;
    this.slots[s + START] = -1;
  }

  /** Whether the item holds a text or boolean value whose key (see valueKey) is `key`. */
  hasKey(item: number, key: number): boolean {
    if (!this.has(item)) return false;
    const s = item * SLOT;
    let lo = this.slots[s + START]!;
    const end = lo + this.slots[s + KEYS]!;
    let hi = end;
    const data = this.data;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (data[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo < end && data[lo] === key;
  }

  /** Whether the item holds, under the name hashed to `name` (see nameKey), a number in [min, max]. */
  hasNumber(item: number, name: number, min: number, max: number): boolean {
    if (!this.has(item)) return false;
    const s = item * SLOT;
    const from = this.slots[s + START]! + this.slots[s + KEYS]!;
    const data = this.data;
    // Binary search over pairs for the first (name, value) at or after (name, min).
    let lo = 0;
    let hi = this.slots[s + PAIRS]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const n = data[from + 2 * mid]!;
      if (n < name || (n === name && data[from + 2 * mid + 1]! < min)) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.slots[s + PAIRS]! && data[from + 2 * lo] === name && data[from + 2 * lo + 1]! <= max;
  }

  private has(item: number): boolean {
    return item * SLOT < this.slots.length && this.slots[item * SLOT + START]! >= 0;
  }

  /** The item's keys, sorted and distinct, into `keys`; its numbers, sorted, into `pairs`. */
  private collect(attributes: Attributes): void {
    const { keys, pairs } = this;
    keys.length = 0;
    pairs.length = 0;
    for (const name in attributes) {
      const value = attributes[name];
      if (!Array.isArray(value)) {
        this.collectOne(name, value);
        continue;
      }
      if (value.length === 0) continue;
      for (const v of value as unknown[]) this.collectOne(name, v);
    }
    keys.sort((a, b) => a - b);
    let m = 0;
    for (let k = 0; k < keys.length; k++) if (m === 0 || keys[k] !== keys[m - 1]) keys[m++] = keys[k]!;
    keys.length = m;
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  private collectOne(name: string, v: unknown): void {
    if (typeof v === "string") this.keys.push(valueKey(name, v));
    else if (typeof v === "boolean") this.keys.push(valueKey(name, v));
    else if (typeof v === "number") this.pairs.push([nameKey(name), v]);
  }

  /** The start of n free doubles: compacts first when replaced runs outweigh live ones, else grows. */
  private allocate(n: number): number {
    if (this.used + n > this.data.length) {
      if (this.live < this.used / 2) this.compact(n);
      else this.data = ensureLength(this.data, this.used + n);
    }
    const at = this.used;
    this.used += n;
    return at;
  }

  private compact(n: number): void {
    const old = this.data;
    const next = new Float64Array(Math.max(1024, 2 * (this.live + n)));
    let at = 0;
    const slots = this.slots;
    for (let s = 0; s < slots.length; s += SLOT) {
      const start = slots[s + START]!;
      if (start < 0) continue;
      const len = slots[s + KEYS]! + 2 * slots[s + PAIRS]!;
      next.set(old.subarray(start, start + len), at);
      slots[s + START] = at;
      at += len;
    }
    this.data = next;
    this.used = at;
  }
}

/** The key an attribute `name` holding `value` (text or boolean) is found by. */
export function valueKey(name: string, value: string | boolean): number {
  return typeof value === "string" ? hashPair52(VALUE_KIND.string, name, value) : hashPair52(VALUE_KIND.boolean, name, value ? "1" : "0");
}

/** The hash numbers are filed under for the attribute `name`. */
export function nameKey(name: string): number {
  return hashName52(name);
}
