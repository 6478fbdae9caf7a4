import { ensureLength } from "./growable.js";
import { Marks } from "./marks.js";
import { hashPair32 } from "./stringHash.js";
import { TokenPostings } from "./tokenPostings.js";
import { bottomK, SKETCH_SIZE, sketchJaccard } from "./tokenSketch.js";

/** Merge steps of similarities taken (`n`) and allowed (`max`): see strategies/workBudget.ts. */
export interface StepBudget {
  n: number;
  max: number;
}

/** An item's attributes as stored (a JSON object). */
export type Attributes = Record<string, unknown>;

/** Values longer than this (titles, descriptions) say little about kinship and are not indexed. */
const TOKEN_VALUE_MAX = 64;
/** Sketch hashes kept in an item's own slots; an item with more keeps them in a typed array of its own. */
const INLINE = 8;
const TOKEN_SEED = 0x7a1e;
/** Tokens an item's 32 KiB of attributes may hold at most (one-character values in an array), with room. */
const TOKENS_SCRATCH = 16 * 1024;

/**
 * Categorical attributes as tokens (`brand=acme`, `tags=outdoor`), each a 32-bit hash, with the items holding
 * each token: how `similar` finds attribute neighbours for items the model has no vector for (new items).
 * An item keeps a bottom-k sketch of its tokens (see tokenSketch.ts), computed at upsert, so that a
 * similarity costs at most 2 × SKETCH_SIZE steps however many tokens the items hold, and only the sketch's
 * tokens are posted (a tag list of a thousand distinct values posts 64). Two tokens may share a hash: they
 * then count as one, a rare error of one token in a similarity.
 */
export class AttributeIndex {
  /** Each item's sketch length, and whether it holds the whole set (1) or the k smallest of more (0). */
  private counts = new Uint8Array(1024);
  private whole = new Uint8Array(1024);
  /** Up to INLINE sketch hashes in the item's own slots (a similarity reads two short runs of memory), more in `overflow`. */
  private inline = new Uint32Array(1024 * INLINE);
  private readonly overflow = new Map<number, Uint32Array>();
  private readonly postings: TokenPostings;
  private readonly taken = new Marks();
  private readonly found = new Neighbours();
  /** rarestFirst()'s answer: posting slots, shortest list first, with their token's place in the sketch and their length. */
  private readonly order = new Int32Array(SKETCH_SIZE);
  private readonly positions = new Int32Array(SKETCH_SIZE);
  private readonly sizes = new Int32Array(SKETCH_SIZE);
  private readonly scratch = new Uint32Array(TOKENS_SCRATCH);
  private readonly previous = new Uint32Array(SKETCH_SIZE);
  /** Counts the merge steps of calls given no budget of their own. */
  private readonly unbounded: StepBudget = { n: 0, max: Infinity };
  /** Kept so that the reads that warm the cache are not optimised away. */
  touched = 0;

  /** `maxTokens`: distinct tokens posted at most; past it, new tokens are kept in sketches but not posted. */
  constructor(maxTokens = Infinity) {
    this.postings = new TokenPostings(maxTokens);
  }

  /** Distinct tokens posted (what the organisation's token cap counts). */
  get tokenCount(): number {
    return this.postings.size;
  }

  /** Sets the item's tokens from its attributes (none for `{}`: an item whose attributes were not kept). */
  set(item: number, attributes: Attributes): void {
    const n = bottomK(this.scratch, this.tokenize(attributes), SKETCH_SIZE);
    // The tokens it held before are left in their lists (read as stale there); new ones are posted.
    const before = this.sketchInto(item, this.previous);
    this.store(item, this.scratch, n, n < SKETCH_SIZE);
    const holds = (token: number) => (other: number) => this.holds(other, token);
    for (let i = 0, j = 0; i < n; i++) {
      const t = this.scratch[i]!;
      while (j < before && this.previous[j]! < t) j++;
      if (j < before && this.previous[j] === t) continue;
      this.postings.add(t, item, holds(t));
    }
  }

  /** The item's sketch: its token hashes, ascending, at most SKETCH_SIZE. */
  tokens(item: number): readonly number[] {
    const n = item < this.counts.length ? this.counts[item]! : 0;
    if (n > INLINE) return Array.from(this.overflow.get(item)!);
    return Array.from(this.inline.subarray(item * INLINE, item * INLINE + n));
  }

  /** Whether the item's sketch holds `token`. */
  holds(item: number, token: number): boolean {
    const n = item < this.counts.length ? this.counts[item]! : 0;
    const codes = n > INLINE ? this.overflow.get(item)! : this.inline;
    let lo = n > INLINE ? 0 : item * INLINE;
    let hi = lo + n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (codes[mid]! < token) lo = mid + 1;
      else hi = mid;
    }
    return lo < (n > INLINE ? n : item * INLINE + n) && codes[lo] === token;
  }

  /** How many hashes the item's sketch holds (0 to SKETCH_SIZE): a similarity with it takes at most this many merge steps of its side. */
  sketchLength(item: number): number {
    return item < this.counts.length ? this.counts[item]! : 0;
  }

  /** Jaccard similarity of two items' token sets (0 when either has none): exact below SKETCH_SIZE tokens, else estimated. */
  similarity(a: number, b: number, steps: StepBudget = this.unbounded): number {
    const na = a < this.counts.length ? this.counts[a]! : 0;
    const nb = b < this.counts.length ? this.counts[b]! : 0;
    if (na === 0 || nb === 0) return 0;
    const ca = na > INLINE ? this.overflow.get(a)! : this.inline;
    const cb = nb > INLINE ? this.overflow.get(b)! : this.inline;
    const fromA = na > INLINE ? 0 : a * INLINE;
    const fromB = nb > INLINE ? 0 : b * INLINE;
    return sketchJaccard(ca, fromA, na, cb, fromB, nb, this.whole[a] === 1 && this.whole[b] === 1, SKETCH_SIZE, steps);
  }

  /**
   * similarity(a, items[k]) into out[k] for k < n, the candidates' slots first read together; 0 for those
   * left once `steps` reaches its max.
   */
  similarities(a: number, items: Int32Array, n: number, out: Float64Array, steps: StepBudget = this.unbounded): void {
    // Reading each candidate's first hash here, in a loop without branches, brings its slots into the cache
    // with the others' in flight; the comparisons below branch on them, which would take the misses one by one.
    let touched = 0;
    for (let k = 0; k < n; k++) touched += this.inline[items[k]! * INLINE] ?? 0;
    this.touched = touched;
    for (let k = 0; k < n; k++) out[k] = steps.n < steps.max ? this.similarity(a, items[k]!, steps) : 0;
  }

  /**
   * Items sharing sketch tokens with `item`, with the Jaccard similarity of their token sets. Posting lists are
   * walked rarest first (the most telling tokens) and the walk stops after `visits` postings, so a token shared
   * by thousands of items costs a bounded amount per request. The answer lives in buffers this index reuses:
   * it holds until the next call.
   */
  neighbours(item: number, visits: number, steps: StepBudget = this.unbounded): Neighbours {
    const found = this.found;
    found.size = 0;
    const taken = this.taken;
    taken.clear();
    taken.add(item);
    const n = this.rarestFirst(item);
    let left = visits;
    walk: for (let r = 0; r < n; r++) {
      const slot = this.order[r]!;
      const token = this.tokenOf(item, this.positions[r]!);
      const length = this.postings.length(slot);
      for (let k = 0; k < length; k++) {
        if (left-- <= 0) break walk;
        const other = this.postings.item(slot, k);
        if (taken.has(other) || !this.holds(other, token)) continue;
        taken.add(other);
        found.add(other, 0);
      }
    }
    // Scored together once found, so that their reads overlap (see similarities).
    this.similarities(item, found.items, found.size, found.scores, steps);
    return found;
  }

  private tokenOf(item: number, position: number): number {
    const n = this.counts[item]!;
    return n > INLINE ? this.overflow.get(item)![position]! : this.inline[item * INLINE + position]!;
  }

  /**
   * Orders the posted lists of the item's sketch tokens shortest first (see `order`): returns how many.
   * Dropped (too common) tokens and tokens past the cap are left out.
   */
  private rarestFirst(item: number): number {
    const n = item < this.counts.length ? this.counts[item]! : 0;
    const { sizes, order, positions } = this;
    let m = 0;
    for (let p = 0; p < n; p++) {
      const slot = this.postings.find(this.tokenOf(item, p));
      if (slot < 0) continue;
      const size = this.postings.length(slot);
      if (size === 0) continue;
      // Insertion sort: a sketch holds at most 64 tokens, and Array.prototype.sort allocates its workspace.
      let at = m++;
      while (at > 0 && sizes[at - 1]! > size) {
        sizes[at] = sizes[at - 1]!;
        order[at] = order[at - 1]!;
        positions[at] = positions[at - 1]!;
        at--;
      }
      sizes[at] = size;
      order[at] = slot;
      positions[at] = p;
    }
    return m;
  }

  /** Copies the item's current sketch into `out`: its length. */
  private sketchInto(item: number, out: Uint32Array): number {
    const n = item < this.counts.length ? this.counts[item]! : 0;
    if (n > INLINE) out.set(this.overflow.get(item)!);
    else out.set(this.inline.subarray(item * INLINE, item * INLINE + n));
    return n;
  }

  private store(item: number, hashes: Uint32Array, n: number, whole: boolean): void {
    this.counts = ensureLength(this.counts, item + 1);
    this.whole = ensureLength(this.whole, item + 1);
    this.inline = ensureLength(this.inline, (item + 1) * INLINE);
    this.counts[item] = n;
    this.whole[item] = whole ? 1 : 0;
    if (n > INLINE) this.overflow.set(item, hashes.slice(0, n));
    else {
      this.overflow.delete(item);
      this.inline.set(hashes.subarray(0, n), item * INLINE);
    }
  }

  /**
   * Writes the token hashes of an item's categorical values (short text, case-folded, and booleans; arrays
   * of them too) to `scratch`: their number.
   */
  private tokenize(attributes: Attributes): number {
    let n = 0;
    for (const name in attributes) {
      const value = attributes[name];
      if (!Array.isArray(value)) {
        if (isToken(value) && n < TOKENS_SCRATCH) this.scratch[n++] = hashPair32(TOKEN_SEED, name, String(value).toLowerCase());
        continue;
      }
      for (const v of value as unknown[]) {
        if (isToken(v) && n < TOKENS_SCRATCH) this.scratch[n++] = hashPair32(TOKEN_SEED, name, String(v).toLowerCase());
      }
    }
    return n;
  }
}

function isToken(v: unknown): boolean {
  return (typeof v === "string" && v.length > 0 && v.length <= TOKEN_VALUE_MAX) || typeof v === "boolean";
}

/** Attribute neighbours of one item: `items[k]` with similarity `scores[k]`, for k below `size`. */
export class Neighbours {
  size = 0;
  items = new Int32Array(256);
  scores = new Float64Array(256);

  add(item: number, score: number): void {
    if (this.size === this.items.length) {
      this.items = ensureLength(this.items, this.size + 1);
      this.scores = ensureLength(this.scores, this.size + 1);
    }
    this.items[this.size] = item;
    this.scores[this.size++] = score;
  }
}
