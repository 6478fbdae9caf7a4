import type { Attributes } from "./catalog.js";

/** Values longer than this (titles, descriptions) say little about kinship and are not indexed. */
const TOKEN_VALUE_MAX = 64;
/** An attribute value shared by more items than this (say, `in_stock=true`) is too common to find neighbours. */
const POSTING_USEFUL_MAX = 5_000;

/**
 * Categorical attributes as tokens (`brand=acme`, `tags=outdoor`), with the items holding each token: how
 * `similar` finds attribute neighbours for items the model has no vector for (new items).
 */
export class AttributeIndex {
  /** Tokens are interned by attribute, then value: no `name=value` string is built or hashed per item. */
  private readonly ids = new Map<string, Map<string, number>>();
  private tokenCount = 0;
  private readonly tokensOf: (number[] | undefined)[] = [];
  /**
   * Items holding each token, by token id; null once more than POSTING_USEFUL_MAX hold it. Such a token is too
   * common to walk, so its list is dropped rather than kept up to date (a bulk upload of a million items
   * spends its time there otherwise), and it stays dropped.
   */
  private readonly postings: (Set<number> | null)[] = [];

  set(item: number, attributes: Attributes): void {
    for (const t of this.tokensOf[item] ?? []) this.postings[t]?.delete(item);
    const tokens = this.tokenize(attributes);
    this.tokensOf[item] = tokens.length > 0 ? tokens : undefined;
    for (const t of tokens) {
      const list = this.postings[t];
      if (list === null) continue;
      if (list.size >= POSTING_USEFUL_MAX) this.postings[t] = null;
      else list.add(item);
    }
  }

  tokens(item: number): readonly number[] {
    return this.tokensOf[item] ?? [];
  }

  /** Jaccard similarity of two items' token sets (0 when either has none). */
  similarity(a: number, b: number): number {
    const ta = this.tokens(a);
    const tb = this.tokens(b);
    return ta.length === 0 || tb.length === 0 ? 0 : jaccard(ta, tb);
  }

  /**
   * Items sharing tokens with `item`, with the Jaccard similarity of their token sets. Posting lists are walked
   * rarest first (the most telling tokens) and the walk stops after `visits` postings, so a token shared by
   * thousands of items costs a bounded amount per request.
   */
  neighbours(item: number, visits: number): { items: number[]; scores: number[] } {
    const mine = this.tokens(item);
    const items: number[] = [];
    const scores: number[] = [];
    const taken = new Set<number>([item]);
    const lists = mine.map((t) => this.postings[t]).filter((s): s is Set<number> => s !== null && s !== undefined).sort((a, b) => a.size - b.size);
    let left = visits;
    for (const list of lists) {
      for (const other of list) {
        if (left-- <= 0) return { items, scores };
        if (taken.has(other)) continue;
        taken.add(other);
        items.push(other);
        scores.push(jaccard(mine, this.tokens(other)));
      }
    }
    return { items, scores };
  }

  /** The token ids of an item's categorical values: short text (case-folded) and booleans, arrays of them too. */
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
    if ((typeof v === "string" && v.length > 0 && v.length <= TOKEN_VALUE_MAX) || typeof v === "boolean") out.push(this.token(name, String(v).toLowerCase()));
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

/** |a ∩ b| / |a ∪ b| of two small token lists (an item has a handful of tokens). */
function jaccard(a: readonly number[], b: readonly number[]): number {
  let both = 0;
  for (const t of a) if (b.includes(t)) both++;
  return both / (a.length + b.length - both);
}

