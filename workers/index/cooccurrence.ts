import { ensureLength } from "./growable.js";
import { RowStore } from "./rowStore.js";
import type { SnapshotReader, SnapshotWriter } from "./snapshotBytes.js";

/** Neighbours kept per item: enough for a page of related items after filters, small enough for 100k items. */
const ROW_CAP = 64;
const COUNT_MAX = 0xffff;
/**
 * Each row's keys are also marked in a 256-bit signature (32 bytes an item): most pairs are new ones, and a
 * clear bit proves a key absent without reading the row (four cache lines of keys when full). With 64 keys
 * about a fifth of the bits are set. Displaced keys leave their bits behind (harmless: a set bit only means
 * "look"), so a row's signature is rebuilt from its keys once it has given up ROW_CAP of them.
 */
const SIGNATURE_WORDS = 8;

/**
 * Item-to-item co-occurrence counts (how many users engaged with both, within a time window), kept
 * incrementally, with per-item user counts so that scores can discount merely popular items (log-likelihood
 * ratio). Each item keeps its ROW_CAP strongest neighbours; a new pair displaces only a neighbour seen once,
 * taking such neighbours in turn round the row (see `replaceable`).
 */
export class CoOccurrence {
  /** (neighbour, users who engaged with both) pairs; counts stop at the column's maximum. */
  private readonly rows = new RowStore(ROW_CAP, { value: Uint16Array, timed: false });
  /** Users who engaged with each item (the margins of the 2×2 table). */
  private margin = new Float32Array(1024);
  /** Per item, where in its full row the search for a neighbour to displace starts next. */
  private nextToReplace = new Uint8Array(1024);
  /** Per item, which slots of its row hold a neighbour seen once (the ones a newcomer may displace): 64 bits in two words. */
  private singles = new Int32Array(1024 * 2);
  /** Per item, neighbours displaced since its signature was last rebuilt. */
  private displaced = new Uint8Array(1024);
  private signatures = new Int32Array(1024 * SIGNATURE_WORDS);
  total = 0;

  countItem(item: number): void {
    this.margin = ensureLength(this.margin, item + 1);
    this.margin[item]!++;
    this.total++;
  }

  addPair(a: number, b: number): void {
    this.bump(a, b);
    this.bump(b, a);
  }

  /** Calls `visit(neighbour, score)` for every neighbour of `item` positively associated with it. */
  forEachNeighbour(item: number, visit: (neighbour: number, score: number, count: number) => void): void {
    const start = this.rows.start(item);
    const n = this.rows.size(item);
    const { key, value } = this.rows.cols;
    const nA = this.marginOf(item);
    for (let k = start; k < start + n; k++) {
      const b = key[k]!;
      const both = value[k]!;
      const score = llrScore(both, nA, this.marginOf(b), this.total);
      if (score > 0) visit(b, score, both);
    }
  }

  /** Releases the slack left by building (see RowStore.trim). */
  trim(): void {
    this.rows.trim();
  }

  snapshotTo(w: SnapshotWriter): void {
    this.rows.snapshotTo(w);
    w.number(this.total);
    w.typed(this.margin);
    w.typed(this.nextToReplace);
    w.typed(this.singles);
    w.typed(this.displaced);
    w.typed(this.signatures);
  }

  restoreFrom(r: SnapshotReader): void {
    this.rows.restoreFrom(r);
    this.total = r.number();
    this.margin = r.typed(Float32Array);
    this.nextToReplace = r.typed(Uint8Array);
    this.singles = r.typed(Int32Array);
    this.displaced = r.typed(Uint8Array);
    this.signatures = r.typed(Int32Array);
    const n = this.displaced.length;
    if (this.nextToReplace.length !== n || this.singles.length !== 2 * n || this.signatures.length !== n * SIGNATURE_WORDS) {
      throw new Error("index snapshot: co-occurrence arrays of unequal lengths");
    }
  }

  neighbourCount(item: number): number {
    return this.rows.size(item);
  }

  private marginOf(item: number): number {
    return item < this.margin.length ? this.margin[item]! : 0;
  }

  private bump(a: number, b: number): void {
    this.room(a);
    const start = this.rows.start(a);
    const end = start + this.rows.size(a);
    const { key, value } = this.rows.cols;
    if (this.mayHold(a, b)) {
      for (let k = start; k < end; k++) {
        if (key[k] === b) {
          if (value[k] === 1) this.singles[2 * a + ((k - start) >>> 5)]! &= ~(1 << ((k - start) & 31));
          if (value[k]! < COUNT_MAX) value[k]!++;
          return;
        }
      }
    }
    if (end - start < ROW_CAP) {
      this.rows.push(a, b, 1);
      this.singles[2 * a + ((end - start) >>> 5)]! |= 1 << ((end - start) & 31);
      this.mark(a, b);
      return;
    }
    const at = this.replaceable(a);
    // -1: every neighbour was seen more than once; the row keeps them, and the newcomer is not counted.
    if (at < 0) return;
    key[start + at] = b; // count stays 1: the newcomer inherits a single sighting
    this.mark(a, b);
    if (++this.displaced[a]! === ROW_CAP) this.resign(a, start);
  }

  private room(a: number): void {
    if (a < this.displaced.length) return;
    this.nextToReplace = ensureLength(this.nextToReplace, a + 1);
    this.displaced = ensureLength(this.displaced, a + 1);
    this.singles = ensureLength(this.singles, this.displaced.length * 2);
    this.signatures = ensureLength(this.signatures, this.displaced.length * SIGNATURE_WORDS);
  }

  /** False when b is certainly not in a's row; true when it may be. */
  private mayHold(a: number, b: number): boolean {
    const bit = signatureBit(b);
    return (this.signatures[a * SIGNATURE_WORDS + (bit >>> 5)]! & (1 << (bit & 31))) !== 0;
  }

  private mark(a: number, b: number): void {
    const bit = signatureBit(b);
    this.signatures[a * SIGNATURE_WORDS + (bit >>> 5)]! |= 1 << (bit & 31);
  }

  /** Rebuilds a's signature from the keys its row holds now. */
  private resign(a: number, start: number): void {
    this.displaced[a] = 0;
    this.signatures.fill(0, a * SIGNATURE_WORDS, (a + 1) * SIGNATURE_WORDS);
    const key = this.rows.cols.key;
    for (let k = start; k < start + ROW_CAP; k++) this.mark(a, key[k]!);
  }

  /**
   * The position in a's full row to give a newcomer: the next neighbour seen only once, counting round the row
   * from the position after the last one given (-1 when every neighbour was seen more than once). In turn rather
   * than the first such slot: that slot went to every newcomer, each displacing the one before it, so once a row
   * filled with single sightings no new neighbour could stay long enough to be seen twice. In turn, a newcomer
   * stays until the other single sightings have each been displaced once.
   */
  private replaceable(a: number): number {
    const at = nextSetBit(this.singles[2 * a]!, this.singles[2 * a + 1]!, this.nextToReplace[a]!);
    if (at >= 0) this.nextToReplace[a] = (at + 1) % ROW_CAP;
    return at;
  }
}

/** The first set bit of the 64-bit mask (lo, hi) at or after `from`, else the first before it; -1 when none is set. */
function nextSetBit(lo: number, hi: number, from: number): number {
  const lowFrom = from < 32 ? lo & (-1 << from) : 0;
  if (lowFrom !== 0) return lowestBit(lowFrom);
  const highFrom = from < 32 ? hi : hi & (-1 << (from - 32));
  if (highFrom !== 0) return 32 + lowestBit(highFrom);
  if (lo !== 0) return lowestBit(lo);
  return hi !== 0 ? 32 + lowestBit(hi) : -1;
}

function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** The signature bit of key b: a multiplicative hash, so that ids that differ by a stride still spread. */
function signatureBit(b: number): number {
  return Math.imul(b, 0x9e3779b1) >>> 24;
}

/**
 * Dunning's log-likelihood ratio for the 2×2 table of users who engaged with A and/or B, signed: positive only
 * when B is more likely with A than without it, so a popular item that co-occurs by chance scores near zero.
 */
export function llrScore(both: number, nA: number, nB: number, total: number): number {
  const k11 = both;
  const k12 = Math.max(0, nA - both);
  const k21 = Math.max(0, nB - both);
  const k22 = Math.max(0, total - nA - nB + both);
  if (k11 === 0 || total === 0) return 0;
  if (k11 / Math.max(1, nA) <= (k21 + 0.5) / Math.max(1, k21 + k22)) return 0;
  const rowEntropy = entropy(k11 + k12, k21 + k22);
  const colEntropy = entropy(k11 + k21, k12 + k22);
  const matEntropy = entropy4(k11, k12, k21, k22);
  return Math.max(0, 2 * (rowEntropy + colEntropy - matEntropy));
}

function xLogX(x: number): number {
  return x === 0 ? 0 : x * Math.log(x);
}

function entropy(a: number, b: number): number {
  return xLogX(a + b) - xLogX(a) - xLogX(b);
}

function entropy4(a: number, b: number, c: number, d: number): number {
  return xLogX(a + b + c + d) - xLogX(a) - xLogX(b) - xLogX(c) - xLogX(d);
}
