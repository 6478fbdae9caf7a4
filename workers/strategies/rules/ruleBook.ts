import type { RankRequest } from "../../../src/wire/rank.js";
import type { RuleWire } from "../../../src/wire/rules.js";
import { ItemMatcher } from "./itemMatcher.js";

/** A rule as the thread keeps it: its scopes as sets, its items as a matcher. */
export interface CompiledRule {
  rule: RuleWire;
  /** `pinned:{name}` / `promoted:{name}`, made once. */
  reason: string;
  scenarios: ReadonlySet<string> | undefined;
  strategies: ReadonlySet<string> | undefined;
  items: ItemMatcher;
}

interface OrgRules {
  version: number;
  rules: CompiledRule[];
}

const DEFAULT_SCENARIO = "default";

/**
 * The enabled rules of the organisations this thread serves, compiled once per change. A change arrives as the
 * organisation's whole rule set with the version PostgreSQL gave it (migration 021): an older reading arriving
 * late (a catch-up after a notice) is ignored. An organisation with no rules has no entry, and costs a map lookup.
 */
export class RuleBook {
  private readonly orgs = new Map<number, OrgRules>();

  set(org: number, version: number, rules: readonly RuleWire[]): boolean {
    const held = this.orgs.get(org);
    if (held && held.version >= version) return false;
    this.orgs.set(org, { version, rules: rules.map(compileRule) });
    return true;
  }

  /** The rules that apply to this request now (scenario, strategy, validity window), in their order; none: undefined. */
  applying(req: RankRequest, nowS: number): CompiledRule[] | undefined {
    const held = this.orgs.get(req.org);
    if (held === undefined || held.rules.length === 0) return undefined;
    const scenario = req.scenario ?? DEFAULT_SCENARIO;
    let out: CompiledRule[] | undefined;
    for (const c of held.rules) {
      const r = c.rule;
      if (c.scenarios && !c.scenarios.has(scenario)) continue;
      if (c.strategies && !c.strategies.has(req.strategy)) continue;
      if ((r.startsS !== null && nowS < r.startsS) || (r.endsS !== null && nowS >= r.endsS)) continue;
      (out ??= []).push(c);
    }
    return out;
  }
}

function compileRule(rule: RuleWire): CompiledRule {
  return {
    rule,
    reason: rule.action === "pin" ? `pinned:${rule.name}` : `promoted:${rule.name}`,
    scenarios: rule.scenarios ? new Set(rule.scenarios) : undefined,
    strategies: rule.strategies ? new Set(rule.strategies) : undefined,
    items: new ItemMatcher(rule.items),
  };
}

/** This thread's rules (one thread, one book: the shard and the ranking read the same). */
export const ruleBook = new RuleBook();
