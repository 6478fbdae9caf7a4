import { ensureLength } from "./growable.js";
import { RowStore } from "./rowStore.js";

/** Neighbours kept per item: enough for a page of related items after filters, small enough for 100k items. */
const ROW_CAP = 64;
const COUNT_MAX = 0xffff;

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

  neighbourCount(item: number): number {
    return this.rows.size(item);
  }

  private marginOf(item: number): number {
    return item < this.margin.length ? this.margin[item]! : 0;
  }

  private bump(a: number, b: number): void {
    const start = this.rows.start(a);
    const end = start + this.rows.size(a);
    const { key, value } = this.rows.cols;
    // Most pairs are new ones: look for the key alone first, and for a slot to give up only when it is absent.
    for (let k = start; k < end; k++) {
      if (key[k] === b) {
        if (value[k]! < COUNT_MAX) value[k]!++;
        return;
      }
    }
    if (end - start < ROW_CAP) {
      this.rows.push(a, b, 1);
      return;
    }
    const at = this.replaceable(a, start);
    if (at >= 0) key[at] = b; // count stays 1: the newcomer inherits a single sighting
  }

  /**
   * The slot of a's full row to give a newcomer: the next neighbour seen only once, counting round the row from
   * the slot after the last one given (-1 when every neighbour was seen more than once). In turn rather than
   * the first such slot: that slot went to every newcomer, each displacing the one before it, so once a row
   * filled with single sightings no new neighbour could stay long enough to be seen twice. In turn, a newcomer
   * stays until the other single sightings have each been displaced once.
   */
  private replaceable(a: number, start: number): number {
    this.nextToReplace = ensureLength(this.nextToReplace, a + 1);
    const value = this.rows.cols.value;
    const from = this.nextToReplace[a]!;
    for (let i = from; i < ROW_CAP; i++) if (value[start + i]! <= 1) return this.given(a, start, i);
    for (let i = 0; i < from; i++) if (value[start + i]! <= 1) return this.given(a, start, i);
    return -1;
  }

  private given(a: number, start: number, i: number): number {
    this.nextToReplace[a] = (i + 1) % ROW_CAP;
    return start + i;
  }
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
