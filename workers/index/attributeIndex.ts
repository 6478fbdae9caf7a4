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
  private readonly tokensOf: (string[] | undefined)[] = [];
  private readonly postings = new Map<string, Set<number>>();

  set(item: number, attributes: Attributes): void {
    for (const t of this.tokensOf[item] ?? []) this.postings.get(t)?.delete(item);
    const tokens = tokenize(attributes);
    this.tokensOf[item] = tokens.length > 0 ? tokens : undefined;
    for (const t of tokens) {
      let items = this.postings.get(t);
      if (!items) this.postings.set(t, (items = new Set()));
      items.add(item);
    }
  }

  tokens(item: number): readonly string[] {
    return this.tokensOf[item] ?? [];
  }

  /** Items sharing tokens with `item`, with Jaccard similarity of their token sets; rarest tokens first, bounded. */
  neighbours(item: number, limit: number): Map<number, number> {
    const mine = this.tokens(item);
    const shared = new Map<number, number>();
    const lists = mine.map((t) => this.postings.get(t)!).filter((s) => s.size <= POSTING_USEFUL_MAX).sort((a, b) => a.size - b.size);
    for (const list of lists) {
      for (const other of list) {
        if (other === item) continue;
        if (!shared.has(other) && shared.size >= limit) continue;
        shared.set(other, (shared.get(other) ?? 0) + 1);
      }
    }
    const out = new Map<number, number>();
    for (const [other, n] of shared) out.set(other, n / (mine.length + this.tokens(other).length - n));
    return out;
  }
}

function tokenize(attributes: Attributes): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if ((typeof v === "string" && v.length > 0 && v.length <= TOKEN_VALUE_MAX) || typeof v === "boolean") out.push(`${name}=${String(v).toLowerCase()}`);
    }
  }
  return out;
}
