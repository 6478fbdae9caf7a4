import type { OrgIndex } from "../../index/orgIndex.js";
import type { CompiledRule } from "./ruleBook.js";

/**
 * What several rules' answers about an item come to (the product of the boost and bury factors it matches;
 * whether a block rule takes it), one value per item, kept while none of the rules' own answers was cleared
 * (ItemMatcher.generation). Each rule's answers span the catalog and are read at random, one cache miss per rule
 * and item; this is one read per item, whatever the number of rules. A value is kept only once every rule that
 * decides it has a known answer (never one the work budget left unchecked), so it is what the rules would say.
 */
export class RuleSetMemo<T extends Float64Array | Int8Array> {
  private rules: readonly CompiledRule[] = [];
  private generations: number[] = [];
  private index: OrgIndex | undefined;
  /** Each rule's answers (ItemMatcher.answers), read for the request being ranked. */
  answers: Int8Array[] = [];
  values: T;

  constructor(
    private readonly make: (n: number) => T,
    /** The value of an item not combined yet. */
    readonly unknown: number,
  ) {
    this.values = make(0);
  }

  /** Ready for a request ranked under these rules, in this order. */
  prepare(index: OrgIndex, rules: readonly CompiledRule[]): this {
    this.answers.length = rules.length;
    for (let r = 0; r < rules.length; r++) this.answers[r] = rules[r]!.items.answers(index);
    let held = this.index === index && this.rules.length === rules.length;
    for (let r = 0; held && r < rules.length; r++) held = this.rules[r] === rules[r] && this.generations[r] === rules[r]!.items.generation;
    if (held) return this;
    this.index = index;
    this.rules = rules;
    this.generations = rules.map((r) => r.items.generation);
    const size = index.catalog.size;
    if (this.values.length < size) this.values = this.make(Math.max(size, this.values.length * 2));
    this.values.fill(this.unknown);
    return this;
  }

  /** Whether every rule up to `last` (inclusive) has a known answer about item i. */
  known(i: number, last: number): boolean {
    for (let r = 0; r <= last; r++) {
      const a = this.answers[r]!;
      if (i >= a.length || a[i] === -1) return false;
    }
    return true;
  }
}

/** One memo per set of rules, found by its first rule (a set that starts alike but differs replaces it). */
export class RuleSetMemos<T extends Float64Array | Int8Array> {
  private readonly byFirst = new WeakMap<CompiledRule, RuleSetMemo<T>>();

  constructor(
    private readonly make: (n: number) => T,
    private readonly unknown: number,
  ) {}

  for(index: OrgIndex, rules: readonly CompiledRule[]): RuleSetMemo<T> {
    let memo = this.byFirst.get(rules[0]!);
    if (!memo) this.byFirst.set(rules[0]!, (memo = new RuleSetMemo(this.make, this.unknown)));
    return memo.prepare(index, rules);
  }
}
