import type { Explanation, ExplainedResult } from "../../src/wire/explanation.js";
import { ownedResult, type RankRequest, type RankResult } from "../../src/wire/rank.js";
import { USER_STRATEGIES, type Strategy } from "../../src/wire/strategies.js";
import { nameKey } from "../index/attributeValues.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { compile, listedItems, passes, type Eligible } from "./eligibility.js";
import { scored } from "./fill.js";
import { contextsOf, FALLBACK_NAMES, rankFresh, seenBy, type RankTap, type StrategyRow } from "./rank.js";
import { NO_RULES, rulesFor, type RequestRules } from "./rules/requestRules.js";
import { ruleBook, type CompiledRule } from "./rules/ruleBook.js";
import type { RankContext, Ranking, StrategyFn } from "./types.js";
import { work } from "./workBudget.js";

/** What one ranking did, as RankTap saw it. */
class Watch implements RankTap {
  /** Who placed each item first (the strategy, or a fallback), with its score before boost and bury. */
  readonly sources = new Map<number, { from: string; score: number }>();
  readonly considered = new Set<number>();
  facts: Parameters<RankTap["done"]>[1] | undefined;
  ctx: RankContext | undefined;

  constructor(private readonly strategy: Strategy) {}

  row(row: StrategyRow): StrategyRow {
    const watched =
      (run: StrategyFn, from: string, all: boolean): StrategyFn =>
      (ctx) => {
        const r = run(ctx);
        // Items of no score are never shown (fill.ts), except a record's: only the ones that can be are recorded.
        if (r) for (let k = 0, n = all ? r.items.length : scored(r); k < n; k++) this.note(r.items[k]!, from, r.scores[k]!);
        return r;
      };
    return {
      ...row,
      run: watched(row.run, this.strategy, row.record === true),
      fallbacks: row.fallbacks.map((f) => watched(f, FALLBACK_NAMES.get(f) ?? "fallback", false)),
    };
  }

  eligible(base: Eligible): Eligible {
    return (i) => {
      this.considered.add(i);
      return base(i);
    };
  }

  done(ctx: RankContext, facts: Parameters<RankTap["done"]>[1]): void {
    this.ctx = ctx;
    this.facts = facts;
  }

  private note(item: number, from: string, score: number): void {
    if (!this.sources.has(item)) this.sources.set(item, { from, score });
  }
}

/**
 * The page `rank` would answer (rules, variety and fallbacks alike, never a shared answer), with its
 * explanation (src/wire/explanation.ts). Costs the ranking twice when rules apply (once without them, for each
 * result's position before rules), plus one pass over the catalog for the eligibility counts: a preview's price,
 * never a recommend request's.
 */
export function explainRank(index: OrgIndex, req: RankRequest, nowS = Date.now() / 1000): { result: RankResult; explanation: Explanation } {
  const rules = rulesFor(index, req, nowS);
  const applying = ruleBook.applying(req, nowS) ?? [];
  let before: Map<number, number> | undefined;
  if (!rules.none) {
    // Ranked as deep as the rules rank it, so an item boosted from far down still has a position to show.
    const bare: RequestRules = { ...NO_RULES, depth: (want) => rules.depth(want) };
    const base = new Watch(req.strategy);
    work.reset();
    rankFresh(index, req, nowS, bare, base);
    before = positions(base.facts?.ranking);
  }
  const watch = new Watch(req.strategy);
  work.reset();
  const result = ownedResult(rankFresh(index, req, nowS, rules, watch));
  const facts = watch.facts!;
  const final = facts.ranking;
  before ??= positions(final);
  const results: ExplainedResult[] = [];
  const from = (req.page - 1) * req.limit;
  for (let k = from; final && k < Math.min(from + req.limit, final.items.length); k++) {
    const item = final.items[k]!;
    const reason = typeof final.reasons === "string" ? final.reasons : final.reasons[k]!;
    const source = watch.sources.get(item);
    results.push({
      item_id: index.catalog.ids.name(item),
      source: source?.from ?? "rule",
      score: source ? round(source.score) : null,
      position_before_rules: before.get(item) ?? null,
      rules: rulesOn(index, applying, item, reason),
    });
  }
  const filledBy = [...FALLBACK_NAMES.values()].filter((name) => name !== req.strategy && results.some((r) => r.source === name));
  const eligibleCounts = funnel(index, req, applying);
  return {
    result,
    explanation: {
      strategy: req.strategy,
      model: modelOf(index, req.strategy),
      mode: facts.mode,
      ...eligibleCounts,
      candidates_considered: watch.considered.size,
      fallback: {
        reason: fallbackReason(index, req, facts, filledBy.length > 0),
        own_results: facts.own,
        wanted: watch.ctx?.want ?? 0,
        filled_by: filledBy,
      },
      rules: applying.map((r) => ({ name: r.rule.name, action: r.rule.action })),
      results,
    },
  };
}

/** 1-based positions of a ranking's items. */
function positions(r: Ranking | undefined): Map<number, number> {
  const out = new Map<number, number>();
  if (r) for (let k = 0; k < r.items.length; k++) if (!out.has(r.items[k]!)) out.set(r.items[k]!, k + 1);
  return out;
}

function round(score: number): number {
  return Math.round(score * 1_000_000) / 1_000_000;
}

/** Boost and bury rules the item matches (each changed its score), and the pin or promote that placed it. */
function rulesOn(index: OrgIndex, applying: readonly CompiledRule[], item: number, reason: string): Array<{ name: string; action: string }> {
  const out: Array<{ name: string; action: string }> = [];
  for (const c of applying) {
    const { action, name } = c.rule;
    const hit = action === "boost" || action === "bury" ? c.items.matches(index, item, false) : action !== "block" && reason === c.reason;
    if (hit) out.push({ name, action });
  }
  return out;
}

function fallbackReason(index: OrgIndex, req: RankRequest, facts: NonNullable<Watch["facts"]>, filled: boolean): string | null {
  if (facts.own === 0 || facts.mode === "fallback") {
    if (USER_STRATEGIES.has(req.strategy)) {
      if (req.userId === undefined) return "no_user";
      if (facts.user < 0) return "unknown_user";
      if (facts.hidden) return "hidden_user";
    } else if ((req.contextItemId !== undefined || req.contextItemIds) && contextsOf(index, req).length === 0) {
      return "unknown_context_item";
    }
    return filled || facts.ranking ? "no_signal" : null;
  }
  return filled ? "page_short" : null;
}

/** What ranks for the strategy: for `personalized`, which model the organisation has (personalized.ts picks the same way). */
function modelOf(index: OrgIndex, strategy: Strategy): string {
  const m = index.model;
  switch (strategy) {
    case "personalized":
      if (!m) return "none yet (no model trained): popularity, then newest";
      if (m.closedForm) return "EASE";
      if (m.itemItem) return m.userTop ? "item-item co-occurrence with user-user lists" : "item-item co-occurrence";
      return "ALS vectors";
    case "similar":
      return m ? "item vectors of the model, blended with shared attributes" : "shared attributes";
    case "because-you-viewed":
      return m ? "co-views and item vectors of the user's latest items" : "co-views of the user's latest items";
    case "frequently-bought-together":
      return "co-purchases (log-likelihood ratio)";
    case "also-viewed":
      return "co-views (log-likelihood ratio)";
    case "recently-viewed":
      return "the user's history";
    case "buy-again":
      return "the user's purchases";
    case "popular":
      return "popularity";
    case "trending":
      return "recent popularity";
    case "new-arrivals":
      return "newest items";
  }
}

/**
 * The catalog's items by the first eligibility reason that removes each (eligibility.ts's checks, then block
 * rules), and the reason after which none was left.
 */
function funnel(
  index: OrgIndex,
  req: RankRequest,
  applying: readonly CompiledRule[],
): Pick<Explanation, "catalog_items" | "eligible_items" | "removed" | "emptied_by"> {
  const catalog = index.catalog;
  const user = req.userId === undefined ? -1 : index.people.find(req.userId);
  const contexts = new Set(contextsOf(index, req));
  const seen = req.excludeSeen && user >= 0 ? seenBy(index, user) : undefined;
  const type = req.itemType === undefined ? -2 : catalog.types.find(req.itemType);
  const excluded = new Set<number>();
  for (const id of req.excludeItemIds ?? []) {
    const i = catalog.ids.find(id);
    if (i >= 0) excluded.add(i);
  }
  const only = req.candidates && new Set(listedItems(index, req.candidates));
  const filters = Object.entries(req.filters ?? {}).map(([name, want]) => ({
    reason: `filter:${name}`,
    name,
    filter: compile(name, want),
    range: typeof want === "object" && !Array.isArray(want),
    numbers: 0,
  }));
  const blocks = applying.filter((r) => r.rule.action === "block");
  const stages = [
    "not_in_candidates",
    "inactive",
    "item_type",
    "context_item",
    "excluded",
    "seen",
    ...filters.map((f) => f.reason),
    ...blocks.map((b) => `blocked:${b.rule.name}`),
  ];
  const counts = new Array<number>(stages.length).fill(0);
  const values = catalog.values;
  let eligible = 0;
  const fixed = 6;
  for (let i = 0; i < catalog.size; i++) {
    let stage = -1;
    if (only !== undefined && !only.has(i)) stage = 0;
    else if (!catalog.isActive(i)) stage = 1;
    else if (type !== -2 && catalog.type[i] !== type) stage = 2;
    else if (contexts.has(i)) stage = 3;
    else if (excluded.has(i)) stage = 4;
    else if (seen?.has(i)) stage = 5;
    else {
      for (let f = 0; f < filters.length && stage < 0; f++) {
        const filter = filters[f]!;
        if (filter.range && values.hasNumber(i, nameKey(filter.name), -Infinity, Infinity)) filter.numbers++;
        if (!passes(values, i, filter.filter)) stage = fixed + f;
      }
      for (let b = 0; b < blocks.length && stage < 0; b++) if (blocks[b]!.items.matches(index, i, true)) stage = fixed + filters.length + b;
    }
    if (stage < 0) eligible++;
    else counts[stage]!++;
  }
  const removed: Explanation["removed"] = [];
  let left = catalog.size;
  let emptiedBy: string | null = null;
  stages.forEach((reason, s) => {
    const count = counts[s]!;
    if (count === 0) return;
    left -= count;
    const entry: Explanation["removed"][number] = { reason, count };
    const filter = s >= fixed && s < fixed + filters.length ? filters[s - fixed]! : undefined;
    if (left === 0) {
      emptiedBy = reason;
      if (filter) {
        entry.note =
          filter.range && filter.numbers === 0
            ? `no item left by the checks before it has a number for "${filter.name}" (a range matches numbers only)`
            : `no item left by the checks before it has a matching value of "${filter.name}"`;
      }
    }
    removed.push(entry);
  });
  return { catalog_items: catalog.size, eligible_items: eligible, removed, emptied_by: emptiedBy };
}
