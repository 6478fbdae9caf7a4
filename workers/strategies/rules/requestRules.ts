import type { OrgIndex } from "../../index/orgIndex.js";
import type { Eligible } from "../eligibility.js";
import { newArrivals, popular } from "../global.js";
import { SHOWN_SCORE_MIN } from "../page.js";
import type { RankContext, Ranking, StrategyFn } from "../types.js";
import type { RankRequest } from "../../../src/wire/rank.js";
import { ruleBook, type CompiledRule } from "./ruleBook.js";

/**
 * Candidates ranked when a boost, bury, promote or pin applies, at least: enough beyond the page for a boosted
 * item to rise into it, and the same for every page up to this depth, so that page 2 continues page 1.
 */
export const RULES_DEPTH = 200;

/**
 * What the rules that apply to one request do to its ranking (README, Rules), in this order: block (in
 * eligibility: no strategy or fallback ever sees a blocked item), boost and bury (each strategy's scores,
 * before the page is filled from the fallbacks), then promote and pin over the filled ranking. The no-rules
 * case is NO_RULES, which changes nothing.
 */
export interface RequestRules {
  readonly none: boolean;
  eligible(base: Eligible): Eligible;
  /** How many candidates to rank for a page that needs `want`. */
  depth(want: number): number;
  /** The strategy and its fallbacks with boost and bury applied to each one's ranking. */
  strategy<T extends { run: StrategyFn; fallbacks: readonly StrategyFn[] }>(row: T): T;
  /** The filled ranking with promote and pin applied. */
  arranged(ctx: RankContext, ranking: Ranking | undefined): Ranking | undefined;
}

export const NO_RULES: RequestRules = {
  none: true,
  eligible: (base) => base,
  depth: (want) => want,
  strategy: (row) => row,
  arranged: (_ctx, ranking) => ranking,
};

/** The rules that apply to this request (see RuleBook.applying), or NO_RULES. */
export function rulesFor(index: OrgIndex, req: RankRequest, nowS: number): RequestRules {
  const rules = ruleBook.applying(req, nowS);
  return rules ? requestRules(index, rules) : NO_RULES;
}

function requestRules(index: OrgIndex, rules: readonly CompiledRule[]): RequestRules {
  const blocks = rules.filter((r) => r.rule.action === "block");
  const weights = rules.filter((r) => r.rule.action === "boost" || r.rule.action === "bury");
  const promotes = rules.filter((r) => r.rule.action === "promote");
  const pins = rules.filter((r) => r.rule.action === "pin");
  const reorders = weights.length + promotes.length + pins.length > 0;
  return {
    none: false,
    eligible: (base) => (blocks.length === 0 ? base : (i) => base(i) && !blocks.some((b) => b.items.matches(index, i, true))),
    depth: (want) => (reorders ? Math.max(want, RULES_DEPTH) : want),
    strategy: (row) => {
      if (weights.length === 0) return row;
      const rescored =
        (run: StrategyFn): StrategyFn =>
        (ctx) =>
          rescore(index, weights, run(ctx));
      return { ...row, run: rescored(row.run), fallbacks: row.fallbacks.map(rescored) } as typeof row;
    },
    arranged: (ctx, ranking) => (promotes.length + pins.length === 0 ? ranking : arrange(ctx, promotes, pins, ranking)),
  };
}

/** Each item's score × the factors of the boost and bury rules it matches (a negative score ÷), re-sorted; ties keep their order. */
function rescore(index: OrgIndex, weights: readonly CompiledRule[], r: Ranking | undefined): Ranking | undefined {
  if (!r) return r;
  const n = r.items.length;
  const scores = new Float64Array(n);
  let changed = false;
  for (let k = 0; k < n; k++) {
    let f = 1;
    for (const w of weights) if (w.items.matches(index, r.items[k]!, false)) f *= w.rule.factor!;
    const s = r.scores[k]!;
    scores[k] = f === 1 ? s : s >= 0 ? s * f : s / f;
    if (f !== 1) changed = true;
  }
  if (!changed) return r;
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return {
    items: order.map((k) => r.items[k]!),
    scores: order.map((k) => scores[k]!),
    reasons: typeof r.reasons === "string" ? r.reasons : order.map((k) => r.reasons[k]!),
  };
}

/** A ranking being arranged; a score of NaN marks an item from outside it (scored from its neighbours at the end). */
interface List {
  items: number[];
  scores: number[];
  reasons: string[];
}

function arrange(ctx: RankContext, promotes: readonly CompiledRule[], pins: readonly CompiledRule[], r: Ranking | undefined): Ranking | undefined {
  let list: List = r
    ? {
        items: Array.from(r.items),
        scores: Array.from(r.scores),
        reasons: typeof r.reasons === "string" ? Array.from(r.items, () => r.reasons as string) : [...r.reasons],
      }
    : { items: [], scores: [], reasons: [] };
  if (promotes.length > 0) list = promote(ctx, promotes, list);
  if (pins.length > 0) pin(ctx, pins, list);
  scoreOutsiders(list.scores);
  return list.items.length === 0 ? undefined : list;
}

/**
 * Each page of `limit` slots gives round(share × limit) of them to each promote rule (in rule order, at most the
 * whole page), its slots spread evenly over the page; each is taken by the best matching item not placed yet:
 * the ranking's first, then the rule's listed ids, then the most popular and the newest eligible items. A
 * matching item the ranking places on the page anyway counts towards its rule's share there. Built page by page
 * from the first up to the one after the request's, so page 2 continues page 1; the rest of the ranking follows.
 */
function promote(ctx: RankContext, rules: readonly CompiledRule[], list: List): List {
  const { index, req } = ctx;
  const limit = req.limit;
  const pages = Math.ceil((req.page * limit + 1) / limit);
  let free = limit;
  const quota = rules.map((r) => {
    const q = Math.min(free, Math.round(r.rule.share! * limit));
    free -= q;
    return q;
  });
  const reservedBy = new Int32Array(limit).fill(-1);
  quota.forEach((q, ri) => {
    for (let j = 0; j < q; j++) {
      let s = Math.floor(((2 * j + 1) * limit) / (2 * q));
      while (reservedBy[s] !== -1) s = (s + 1) % limit;
      reservedBy[s] = ri;
    }
  });
  const used = new Set<number>();
  const inList = new Set(list.items);
  const scoreOf = new Map<number, number>();
  list.items.forEach((item, k) => scoreOf.set(item, list.scores[k]!));
  const streams = rules.map((rule, ri) => {
    const mine = list.items.filter((i) => rule.items.matches(index, i, false));
    let outside: number[] | undefined;
    let k = 0;
    return (): number | undefined => {
      for (; k < mine.length; k++) if (!used.has(mine[k]!)) return mine[k++];
      outside ??= outsiders(ctx, rule, inList, quota[ri]! * pages);
      for (; k - mine.length < outside.length; k++) if (!used.has(outside[k - mine.length]!)) return outside[k++ - mine.length];
      return undefined;
    };
  });
  let organic = 0;
  const nextOrganic = (): number | undefined => {
    while (organic < list.items.length && used.has(list.items[organic]!)) organic++;
    return organic < list.items.length ? organic++ : undefined;
  };
  const out: List = { items: [], scores: [], reasons: [] };
  const place = (item: number, reason: string): void => {
    used.add(item);
    out.items.push(item);
    out.scores.push(scoreOf.get(item) ?? NaN);
    out.reasons.push(reason);
  };
  for (let p = 0; p < pages; p++) {
    const owed = quota.slice();
    for (let s = 0; s < limit; s++) {
      const ri = reservedBy[s]!;
      const promoted = ri >= 0 && owed[ri]! > 0 ? streams[ri]!() : undefined;
      if (promoted !== undefined) {
        owed[ri]!--;
        place(promoted, rules[ri]!.reason);
        continue;
      }
      const k = nextOrganic();
      if (k !== undefined) {
        const item = list.items[k]!;
        const counts = rules.findIndex((rule, rj) => owed[rj]! > 0 && rule.items.matches(index, item, false));
        if (counts >= 0) owed[counts]!--;
        place(item, counts >= 0 ? rules[counts]!.reason : list.reasons[k]!);
        continue;
      }
      // The ranking is spent: what the rules still owe this page fills it, then the list ends.
      const owing = rules.findIndex((_, rj) => owed[rj]! > 0);
      const last = owing >= 0 ? streams[owing]!() : undefined;
      if (last === undefined) return out;
      owed[owing]!--;
      place(last, rules[owing]!.reason);
    }
  }
  // The rest of the ranking follows, as it was: pin looks for its item in the whole of it, whatever the page.
  for (let k = nextOrganic(); k !== undefined; k = nextOrganic()) place(list.items[k]!, list.reasons[k]!);
  return out;
}

/**
 * Pins in order of position (then of rule): each takes the best matching item not pinned yet (the list's first,
 * else as promote looks outside it) out of the list and puts it at its position, or last when the list is shorter.
 */
function pin(ctx: RankContext, rules: readonly CompiledRule[], list: List): void {
  const ordered = [...rules].sort((a, b) => a.rule.position! - b.rule.position!);
  const taken = new Set<number>();
  const inList = new Set(list.items);
  const chosen: Array<{ rule: CompiledRule; item: number; score: number }> = [];
  for (const rule of ordered) {
    const k = list.items.findIndex((i) => !taken.has(i) && rule.items.matches(ctx.index, i, false));
    const item = k >= 0 ? list.items[k] : outsiders(ctx, rule, new Set([...inList, ...taken]), 1)[0];
    if (item === undefined) continue;
    taken.add(item);
    chosen.push({ rule, item, score: k >= 0 ? list.scores[k]! : NaN });
  }
  if (chosen.length === 0) return;
  for (let k = list.items.length - 1; k >= 0; k--) {
    if (!taken.has(list.items[k]!)) continue;
    list.items.splice(k, 1);
    list.scores.splice(k, 1);
    list.reasons.splice(k, 1);
  }
  for (const c of chosen) {
    const at = Math.min(c.rule.rule.position! - 1, list.items.length);
    list.items.splice(at, 0, c.item);
    list.scores.splice(at, 0, c.score);
    list.reasons.splice(at, 0, c.rule.reason);
  }
}

/**
 * Up to `n` items of the rule outside `exclude`, each one the request may return (ctx.eligible: active, not
 * blocked, excluded or filtered out): its listed ids in order, then the most popular, then the newest (among the
 * organisation's 2,000 most popular and 2,000 newest: a bounded search, never a scan of the catalog).
 */
function outsiders(ctx: RankContext, rule: CompiledRule, exclude: ReadonlySet<number>, n: number): number[] {
  const out: number[] = [];
  if (n <= 0) return out;
  const { index } = ctx;
  const fits = (i: number): boolean => !exclude.has(i) && !out.includes(i) && ctx.eligible(i);
  for (const id of rule.items.listed) {
    if (out.length >= n) return out;
    const i = index.catalog.ids.find(id);
    if (i >= 0 && fits(i) && rule.items.matches(index, i, false)) out.push(i);
  }
  for (const source of [popular, newArrivals]) {
    for (const i of matchingIn(source.top(index, ctx.nowS), rule, index)) {
      if (out.length >= n) return out;
      if (fits(i)) out.push(i);
    }
  }
  return out;
}

/** Each rule's items within a cached top, found once while that top stands (a request then checks only those). */
const matching = new WeakMap<Int32Array, Map<CompiledRule, Int32Array>>();

function matchingIn(top: Int32Array, rule: CompiledRule, index: OrgIndex): Int32Array {
  let byRule = matching.get(top);
  if (!byRule) matching.set(top, (byRule = new Map()));
  let found = byRule.get(rule);
  if (!found) byRule.set(rule, (found = top.filter((i) => rule.items.matchesUnbounded(index, i))));
  return found;
}

/** An item from outside the ranking takes the score of the item after it (before it when last): the page stays in score order. */
function scoreOutsiders(scores: number[]): void {
  for (let k = scores.length - 1; k >= 0; k--) {
    if (!Number.isNaN(scores[k]!)) continue;
    scores[k] = k + 1 < scores.length ? scores[k + 1]! : NaN;
  }
  for (let k = 0; k < scores.length; k++) if (Number.isNaN(scores[k]!)) scores[k] = k > 0 ? scores[k - 1]! : SHOWN_SCORE_MIN;
}
