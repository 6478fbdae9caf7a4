import type { FilterValue } from "../../../src/wire/rank.js";
import type { OrgIndex } from "../../index/orgIndex.js";
import { compile, passes, type Filter } from "../eligibility.js";
import { work } from "../workBudget.js";

/** How long a rule's answers about items are kept while the catalog keeps changing (a request's rules stay cheap under item upserts). */
const MEMO_MS = 1_000;

/**
 * A rule's `items` as a test of one interned item: any of `item_id`, any of `item_type`, and every attribute
 * filter (the recommend filter grammar, compiled as eligibility.ts compiles a request's). Ids and types are
 * interned per index, and again when its catalog has grown (a rule may name an item before it is ingested).
 */

export class ItemMatcher {
  private readonly ids: readonly string[] | undefined;
  private readonly typeNames: readonly string[] | undefined;
  private readonly filters: Filter[];
  private resolvedFor: OrgIndex | undefined;
  private resolvedSize = -1;
  private idSet: Set<number> | undefined;
  private typeSet: Set<number> | undefined;
  /**
   * The rule's answer for each item (1 matches, 0 not, −1 not asked yet), kept while the catalog is unchanged
   * and, while items keep changing, for at most MEMO_MS: a rule's test of an item is then a read, whatever the
   * number of requests, and an item's new attributes count within MEMO_MS.
   */
  private memo = new Int8Array(0);
  private memoIndex: OrgIndex | undefined;
  private memoVersion = -1;
  private memoAt = 0;
  /** How many times the answers were cleared: what was derived from them (RuleSetMemo) stands while this does not change. */
  generation = 0;

  constructor(items: Record<string, FilterValue>) {
    const { item_id: ids, item_type: types, ...attributes } = items;
    this.ids = ids === undefined ? undefined : (ids as string[]);
    this.typeNames = types === undefined ? undefined : Array.isArray(types) ? (types as string[]) : [types as string];
    this.filters = Object.entries(attributes).map(([name, want]) => compile(name, want));
  }

  /** The ids the rule names, in its order (what pin and promote take first when the ranking holds none of them). */
  get listed(): readonly string[] {
    return this.ids ?? [];
  }

  /** The catalog's items among the ids the rule names (undefined: it names none, so any item may match). */
  namedItems(index: OrgIndex): ReadonlySet<number> | undefined {
    if (this.resolvedFor !== index || this.resolvedSize !== index.catalog.size + index.catalog.types.size) this.resolve(index);
    return this.idSet;
  }

  /**
   * Whether the item is one of the rule's. Attribute filters count against the request's work budget; past it
   * the answer is `whenOver` (block: true, so an item not checked is never shown; the others: false).
   */
  matches(index: OrgIndex, i: number, whenOver: boolean): boolean {
    const memo = this.answers(index);
    const known = i < memo.length ? memo[i]! : -1;
    return known === -1 ? this.decide(index, i, whenOver) : known === 1;
  }

  /**
   * The answers known so far, for a caller testing many items against one rule: a −1 is decided by decide().
   * Valid for the request being ranked (the thread's next request may find another array).
   */
  answers(index: OrgIndex): Int8Array {
    const { catalog } = index;
    if (this.resolvedFor !== index || this.resolvedSize !== catalog.size + catalog.types.size) this.resolve(index);
    const held = this.memoIndex === index && this.memo.length >= catalog.size;
    if (held && this.memoVersion === catalog.version) return this.memo;
    const now = Date.now();
    if (held && now - this.memoAt < MEMO_MS) return this.memo;
    if (this.memo.length < catalog.size) this.memo = new Int8Array(Math.max(catalog.size, this.memo.length * 2));
    this.memo.fill(-1);
    this.generation++;
    this.memoIndex = index;
    this.memoVersion = catalog.version;
    this.memoAt = now;
    return this.memo;
  }

  /** Tests the item (answers() came first) and keeps the answer, unless the budget ran out before it was known. */
  decide(index: OrgIndex, i: number, whenOver: boolean): boolean {
    let found = (this.idSet === undefined || this.idSet.has(i)) && (this.typeSet === undefined || this.typeSet.has(index.catalog.type[i]!));
    if (found && this.filters.length > 0) {
      if (!work.filterProbesLeft()) return whenOver;
      const values = index.catalog.values;
      for (let k = 0; k < this.filters.length && found; k++) found = passes(values, i, this.filters[k]!);
    }
    if (i < this.memo.length) this.memo[i] = found ? 1 : 0;
    return found;
  }

  /** matches() outside any request's budget: for what is found once and shared by requests (a bounded list). */
  matchesUnbounded(index: OrgIndex, i: number): boolean {
    if (this.resolvedFor !== index || this.resolvedSize !== index.catalog.size + index.catalog.types.size) this.resolve(index);
    if (this.idSet !== undefined && !this.idSet.has(i)) return false;
    if (this.typeSet !== undefined && !this.typeSet.has(index.catalog.type[i]!)) return false;
    const values = index.catalog.values;
    for (const f of this.filters) if (!passes(values, i, f, false)) return false;
    return true;
  }

  private resolve(index: OrgIndex): void {
    const { catalog } = index;
    this.resolvedFor = index;
    this.resolvedSize = catalog.size + catalog.types.size;
    this.idSet = this.ids && new Set(this.ids.map((id) => catalog.ids.find(id)).filter((i) => i >= 0));
    this.typeSet = this.typeNames && new Set(this.typeNames.map((t) => catalog.types.find(t)).filter((t) => t >= 0));
  }
}
