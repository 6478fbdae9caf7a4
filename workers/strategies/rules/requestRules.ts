import { ensureLength } from "../../index/growable.js";
import { Marks } from "../../index/marks.js";
import type { OrgIndex } from "../../index/orgIndex.js";
import type { Eligible } from "../eligibility.js";
import { newArrivals, popular } from "../global.js";
import { SHOWN_SCORE_MIN } from "../page.js";
import type { RankContext, Ranking, StrategyFn } from "../types.js";
import type { RankRequest } from "../../../src/wire/rank.js";
import { ruleBook, type CompiledRule } from "./ruleBook.js";

/**
 * Candidates ranked when a boost, bury, promote or pin applies, at least: enough beyond the page for a boosted
 * item to rise into it (almost five pages of 20), and the same for every page up to this depth, so that page 2
 * continues page 1. The length of `personalized`'s kept lists (USER_TOP_PER_USER), so that rules re-rank a list
 * read from memory rather than a fresh sum of the user's rows.
 */
export const RULES_DEPTH = 96;

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
  const blocks: CompiledRule[] = [];
  const weights: CompiledRule[] = [];
  const promotes: CompiledRule[] = [];
  const pins: CompiledRule[] = [];
  for (const r of rules) {
    const action = r.rule.action;
    (action === "block" ? blocks : action === "pin" ? pins : action === "promote" ? promotes : weights).push(r);
  }
  const reorders = weights.length + promotes.length + pins.length > 0;
  return {
    none: false,
    eligible: (base) => (blocks.length === 0 ? base : unblocked(index, blocks, base)),
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

function unblocked(index: OrgIndex, blocks: readonly CompiledRule[], base: Eligible): Eligible {
  return (i) => {
    if (!base(i)) return false;
    for (let b = 0; b < blocks.length; b++) if (blocks[b]!.items.matches(index, i, true)) return false;
    return true;
  };
}

/** Per ranking position, for the request being re-scored (one thread ranks one request at a time). */
let factors = new Float64Array(0);
let changedAt = new Int32Array(0);

/**
 * Each item's score × the factors of the boost and bury rules it matches (a negative score ÷), re-sorted; ties
 * keep their order. A ranking comes best first, so only the items a rule changed move: they are sorted among
 * themselves and merged back into the others, which keep their order.
 */
function rescore(index: OrgIndex, weights: readonly CompiledRule[], r: Ranking | undefined): Ranking | undefined {
  if (!r) return r;
  const n = r.items.length;
  if (factors.length < n) {
    factors = ensureLength(factors, n);
    changedAt = ensureLength(changedAt, n);
  }
  factors.fill(1, 0, n);
  for (const w of weights) {
    const answers = w.items.answers(index);
    const factor = w.rule.factor!;
    for (let k = 0; k < n; k++) {
      const i = r.items[k]!;
      const known = i < answers.length ? answers[i]! : -1;
      if (known === 1 || (known === -1 && w.items.decide(index, i, false))) factors[k]! *= factor;
    }
  }
  let changed = 0;
  let ordered = true;
  for (let k = 0; k < n; k++) {
    if (factors[k] !== 1) changedAt[changed++] = k;
    if (k > 0 && r.scores[k]! > r.scores[k - 1]!) ordered = false;
  }
  if (changed === 0) return r;
  const scoreAt = (k: number): number => {
    const s = r.scores[k]!;
    const f = factors[k]!;
    return f === 1 ? s : s >= 0 ? s * f : s / f;
  };
  const byScore = (a: number, b: number): number => scoreAt(b) - scoreAt(a) || a - b;
  const order = ordered ? mergeMoved(n, changed, byScore) : Array.from({ length: n }, (_, k) => k).sort(byScore);
  const items = new Int32Array(n);
  const scores = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    items[k] = r.items[order[k]!]!;
    scores[k] = scoreAt(order[k]!);
  }
  return { items, scores, reasons: typeof r.reasons === "string" ? r.reasons : Array.from(order, (k) => r.reasons[k]!) };
}

/** Positions 0…n−1 in `byScore` order, when the positions not in changedAt[0, changed) are in it already. */
function mergeMoved(n: number, changed: number, byScore: (a: number, b: number) => number): Int32Array {
  const moved = changedAt.slice(0, changed).sort(byScore);
  const order = new Int32Array(n);
  let next = 0;
  let c = 0;
  let out = 0;
  for (let k = 0; k < n; k++) {
    if (c < changed && changedAt[c] === k) {
      c++;
      continue;
    }
    while (next < changed && byScore(moved[next]!, k) < 0) order[out++] = moved[next++]!;
    order[out++] = k;
  }
  while (next < changed) order[out++] = moved[next++]!;
  return order;
}

/** A ranking being arranged; a score of NaN marks an item from outside it (scored from its neighbours at the end). */
interface List {
  items: number[];
  scores: number[];
  reasons: string[];
}

/** Items of the list being arranged, items placed, items pinned (one thread ranks one request at a time). */
const inList = new Marks();
const used = new Marks();
const taken = new Marks();

function arrange(ctx: RankContext, promotes: readonly CompiledRule[], pins: readonly CompiledRule[], r: Ranking | undefined): Ranking | undefined {
  let list: List = r
    ? {
        items: Array.from(r.items),
        scores: Array.from(r.scores),
        reasons: typeof r.reasons === "string" ? new Array<string>(r.items.length).fill(r.reasons) : [...r.reasons],
      }
    : { items: [], scores: [], reasons: [] };
  if (promotes.length > 0) list = promote(ctx, promotes, list);
  if (pins.length > 0) pin(ctx, pins, list);
  scoreOutsiders(list.scores);
  return list.items.length === 0 ? undefined : list;
}

function markAll(marks: Marks, items: readonly number[]): Marks {
  marks.clear();
  for (const i of items) marks.add(i);
  return marks;
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
  used.clear();
  markAll(inList, list.items);
  const n = list.items.length;
  const out: List = { items: [], scores: [], reasons: [] };
  const place = (item: number, score: number, reason: string): void => {
    used.add(item);
    out.items.push(item);
    out.scores.push(score);
    out.reasons.push(reason);
  };
  // Each rule's matching positions in the list, found before anything else is looked for (what the work budget
  // leaves for them does not depend on the order the slots are filled in); then its outsiders.
  const mine = rules.map((rule) => {
    const at: number[] = [];
    for (let k = 0; k < n; k++) if (rule.items.matches(index, list.items[k]!, false)) at.push(k);
    return at;
  });
  const mineAt = new Int32Array(rules.length);
  const outsideAt = new Int32Array(rules.length);
  const outside: (number[] | undefined)[] = new Array(rules.length);
  const placeNext = (ri: number): boolean => {
    const rule = rules[ri]!;
    const at = mine[ri]!;
    for (let m = mineAt[ri]!; m < at.length; m++) {
      const k = at[m]!;
      if (used.has(list.items[k]!)) continue;
      mineAt[ri] = m + 1;
      place(list.items[k]!, list.scores[k]!, rule.reason);
      return true;
    }
    mineAt[ri] = at.length;
    const theirs = (outside[ri] ??= outsiders(ctx, rule, inList, quota[ri]! * pages));
    for (let m = outsideAt[ri]!; m < theirs.length; m++) {
      if (used.has(theirs[m]!)) continue;
      outsideAt[ri] = m + 1;
      place(theirs[m]!, Number.NaN, rule.reason);
      return true;
    }
    outsideAt[ri] = theirs.length;
    return false;
  };
  let organic = 0;
  const owed = new Int32Array(rules.length);
  for (let p = 0; p < pages; p++) {
    owed.set(quota);
    for (let s = 0; s < limit; s++) {
      const ri = reservedBy[s]!;
      if (ri >= 0 && owed[ri]! > 0 && placeNext(ri)) {
        owed[ri]!--;
        continue;
      }
      while (organic < n && used.has(list.items[organic]!)) organic++;
      if (organic < n) {
        const k = organic++;
        const item = list.items[k]!;
        let counts = -1;
        for (let rj = 0; rj < rules.length && counts < 0; rj++) if (owed[rj]! > 0 && rules[rj]!.items.matches(index, item, false)) counts = rj;
        if (counts >= 0) owed[counts]!--;
        place(item, list.scores[k]!, counts >= 0 ? rules[counts]!.reason : list.reasons[k]!);
        continue;
      }
      // The ranking is spent: what the rules still owe this page fills it, then the list ends.
      const owing = owed.findIndex((o) => o > 0);
      if (owing < 0 || !placeNext(owing)) return out;
      owed[owing]!--;
    }
  }
  // The rest of the ranking follows, as it was: pin looks for its item in the whole of it, whatever the page.
  for (let k = organic; k < n; k++) if (!used.has(list.items[k]!)) place(list.items[k]!, list.scores[k]!, list.reasons[k]!);
  return out;
}

/**
 * Pins in order of position (then of rule): each takes the best matching item not pinned yet (the list's first,
 * else as promote looks outside it) out of the list and puts it at its position, or last when the list is shorter.
 */
function pin(ctx: RankContext, rules: readonly CompiledRule[], list: List): void {
  const ordered = [...rules].sort((a, b) => a.rule.position! - b.rule.position!);
  taken.clear();
  markAll(inList, list.items);
  const outside = { has: (i: number) => inList.has(i) || taken.has(i) };
  const chosen: Array<{ rule: CompiledRule; item: number; score: number }> = [];
  for (const rule of ordered) {
    let k = 0;
    while (k < list.items.length && (taken.has(list.items[k]!) || !rule.items.matches(ctx.index, list.items[k]!, false))) k++;
    const item = k < list.items.length ? list.items[k] : outsiders(ctx, rule, outside, 1)[0];
    if (item === undefined) continue;
    taken.add(item);
    chosen.push({ rule, item, score: k < list.items.length ? list.scores[k]! : NaN });
  }
  if (chosen.length === 0) return;
  let kept = 0;
  for (let k = 0; k < list.items.length; k++) {
    if (taken.has(list.items[k]!)) continue;
    list.items[kept] = list.items[k]!;
    list.scores[kept] = list.scores[k]!;
    list.reasons[kept++] = list.reasons[k]!;
  }
  list.items.length = list.scores.length = list.reasons.length = kept;
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
function outsiders(ctx: RankContext, rule: CompiledRule, exclude: { has(item: number): boolean }, n: number): number[] {
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
