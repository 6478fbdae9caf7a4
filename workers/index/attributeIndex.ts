import { ensureLength } from "./growable.js";
import { Marks } from "./marks.js";

/** An item's attributes as stored (a JSON object). */
export type Attributes = Record<string, unknown>;

/** Values longer than this (titles, descriptions) say little about kinship and are not indexed. */
const TOKEN_VALUE_MAX = 64;
/** An attribute value shared by more items than this (say, `in_stock=true`) is too common to find neighbours. */
const POSTING_USEFUL_MAX = 5_000;
/** Token ids kept in an item's own slots; an item with more keeps them in a typed array of its own. */
const INLINE = 8;
/** Tokens counted per item (a long tag list beyond this says no more about kinship). */
const TOKENS_PER_ITEM_MAX = 1_000;

/**
 * Categorical attributes as tokens (`brand=acme`, `tags=outdoor`), with the items holding each token: how
 * `similar` finds attribute neighbours for items the model has no vector for (new items).
 */
export class AttributeIndex {
  /** Tokens are interned by attribute, then value: no `name=value` string is built or hashed per item. */
  private readonly ids = new Map<string, Map<string, number>>();
  private tokenCount = 0;
  /**
   * Each item's token ids, packed: up to INLINE of them in the item's own slots of one typed array (a
   * similarity then reads two short runs of memory, not two arrays scattered over the heap), more in `overflow`.
   */
  private counts = new Uint16Array(1024);
  private inline = new Int32Array(1024 * INLINE);
  private readonly overflow = new Map<number, Int32Array>();
  /**
   * Items holding each token, by token id; null once more than POSTING_USEFUL_MAX hold it. Such a token is too
   * common to walk, so its list is dropped rather than kept up to date (a bulk upload of a million items
   * spends its time there otherwise), and it stays dropped.
   */
  private readonly postings: (Set<number> | null)[] = [];
  private readonly taken = new Marks();
  private readonly found = new Neighbours();
  private readonly lists: Set<number>[] = [];
  /** similarities()'s gathered token counts. */
  private countsOf = new Uint16Array(256);
  /** Kept so that the reads that warm the cache are not optimised away. */
  touched = 0;

  set(item: number, attributes: Attributes): void {
    for (const t of this.tokens(item)) this.postings[t]?.delete(item);
    const tokens = [...new Set(this.tokenize(attributes))].slice(0, TOKENS_PER_ITEM_MAX);
    this.store(item, tokens);
    for (const t of tokens) {
      const list = this.postings[t];
      if (list === null) continue;
      if (list.size >= POSTING_USEFUL_MAX) this.postings[t] = null;
      else list.add(item);
    }
  }

  tokens(item: number): readonly number[] {
    const n = item < this.counts.length ? this.counts[item]! : 0;
    if (n > INLINE) return Array.from(this.overflow.get(item)!);
    return Array.from(this.inline.subarray(item * INLINE, item * INLINE + n));
  }

  /** Jaccard similarity of two items' token sets (0 when either has none): |a ∩ b| / |a ∪ b|. */
  similarity(a: number, b: number): number {
    const na = a < this.counts.length ? this.counts[a]! : 0;
    const nb = b < this.counts.length ? this.counts[b]! : 0;
    if (na === 0 || nb === 0) return 0;
    const ca = na > INLINE ? this.overflow.get(a)! : this.inline;
    const cb = nb > INLINE ? this.overflow.get(b)! : this.inline;
    const fromA = na > INLINE ? 0 : a * INLINE;
    const fromB = nb > INLINE ? 0 : b * INLINE;
    let both = 0;
    for (let i = fromA; i < fromA + na; i++) {
      const t = ca[i]!;
      for (let j = fromB; j < fromB + nb; j++) {
        if (cb[j] === t) {
          both++;
          break;
        }
      }
    }
    return both / (na + nb - both);
  }

  /** similarity(a, items[k]) into out[k] for k < n, the candidates' token slots first read together. */
  similarities(a: number, items: Int32Array, n: number, out: Float64Array): void {
    const counts = (this.countsOf = ensureLength(this.countsOf, n));
    // Reading each candidate's first token here, in a loop without branches, brings its slots into the cache
    // with the others' in flight; the comparisons below branch on them, which would take the misses one by one.
    let touched = 0;
    for (let k = 0; k < n; k++) {
      const b = items[k]!;
      counts[k] = b < this.counts.length ? this.counts[b]! : 0;
      touched += this.inline[b * INLINE] ?? 0;
    }
    this.touched = touched;
    for (let k = 0; k < n; k++) out[k] = counts[k] === 0 ? 0 : this.similarity(a, items[k]!);
  }

  /**
   * Items sharing tokens with `item`, with the Jaccard similarity of their token sets. Posting lists are walked
   * rarest first (the most telling tokens) and the walk stops after `visits` postings, so a token shared by
   * thousands of items costs a bounded amount per request. The answer lives in buffers this index reuses:
   * it holds until the next call.
   */
  neighbours(item: number, visits: number): Neighbours {
    const found = this.found;
    found.size = 0;
    const taken = this.taken;
    taken.clear();
    taken.add(item);
    const lists = this.rarestFirst(item);
    let left = visits;
    walk: for (const list of lists) {
      for (const other of list) {
        if (left-- <= 0) break walk;
        if (taken.has(other)) continue;
        taken.add(other);
        found.add(other, 0);
      }
    }
    // Scored together once found, so that their token reads overlap (see similarities).
    this.similarities(item, found.items, found.size, found.scores);
    return found;
  }

  /** The posting lists of the item's tokens that are still kept, shortest first (in a reused array). */
  private rarestFirst(item: number): Set<number>[] {
    const lists = this.lists;
    lists.length = 0;
    const n = item < this.counts.length ? this.counts[item]! : 0;
    const codes = n > INLINE ? this.overflow.get(item)! : this.inline;
    const from = n > INLINE ? 0 : item * INLINE;
    for (let i = from; i < from + n; i++) {
      const list = this.postings[codes[i]!];
      if (!list) continue;
      // Insertion sort: an item has a handful of tokens, and Array.prototype.sort allocates its workspace.
      let at = lists.length;
      lists.push(list);
      while (at > 0 && lists[at - 1]!.size > list.size) {
        lists[at] = lists[at - 1]!;
        at--;
      }
      lists[at] = list;
    }
    return lists;
  }

  private store(item: number, tokens: number[]): void {
    this.counts = ensureLength(this.counts, item + 1);
    this.inline = ensureLength(this.inline, (item + 1) * INLINE);
    this.counts[item] = tokens.length;
    if (tokens.length > INLINE) this.overflow.set(item, Int32Array.from(tokens));
    else {
      this.overflow.delete(item);
      this.inline.set(tokens, item * INLINE);
    }
  }

  /** The token ids of an item's categorical values: short text (case-folded) and booleans, arrays of them too (repeats included). */
  private tokenize(attributes: Attributes): number[] {
    const out: number[] = [];
    for (const name in attributes) {
      const value = attributes[name];
      if (Array.isArray(value)) for (const v of value) this.addToken(out, name, v);
      else this.addToken(out, name, value);
    }
    return out;
  }

  private addToken(out: number[], name: string, v: unknown): void {
    if ((typeof v === "string" && v.length > 0 && v.length <= TOKEN_VALUE_MAX) || typeof v === "boolean") {
      out.push(this.token(name, String(v).toLowerCase()));
    }
  }

  private token(name: string, value: string): number {
    let values = this.ids.get(name);
    if (!values) this.ids.set(name, (values = new Map()));
    let id = values.get(value);
    if (id === undefined) {
      values.set(value, (id = this.tokenCount++));
      this.postings[id] = new Set();
    }
    return id;
  }
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
