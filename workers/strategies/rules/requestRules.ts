import { ensureLength } from "../../index/growable.js";
import { Marks } from "../../index/marks.js";
import type { OrgIndex } from "../../index/orgIndex.js";
import type { Eligible } from "../eligibility.js";
import { newArrivals, popular } from "../global.js";
import { placesOf, SHOWN_SCORE_MIN } from "../page.js";
import type { RankContext, Ranking, StrategyFn } from "../types.js";
import type { RankRequest } from "../../../src/wire/rank.js";
import { ruleBook, type CompiledRule } from "./ruleBook.js";
import { RuleSetMemos, type RuleSetMemo } from "./ruleSetMemo.js";

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
  // Pins in order of position (then of rule); a placed item's reason is its rule's place in `arranging`.
  const pinned = pins.sort((a, b) => a.rule.position! - b.rule.position!);
  const arranging = [...promotes, ...pinned];
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
    arranged: (ctx, ranking) => (arranging.length === 0 ? ranking : arrange(ctx, promotes, pinned, arranging, ranking)),
  };
}

/**
 * Whether a rule's items include item i, as ItemMatcher.matches answers, from the answers the caller read once
 * for the request (the catalog does not change while a request is ranked).
 */
function hit(index: OrgIndex, rule: CompiledRule, answers: Int8Array, i: number, whenOver: boolean): boolean {
  const known = i < answers.length ? answers[i]! : -1;
  return known === -1 ? rule.items.decide(index, i, whenOver) : known === 1;
}

/** Per set of block rules, whether each item is blocked (1, 0; −1 not combined yet). */
const blockMemos = new RuleSetMemos((n) => new Int8Array(n), -1);
/** Per set of boost and bury rules, the product of the factors each item matches (NaN: not combined yet). */
const weightMemos = new RuleSetMemos((n) => new Float64Array(n), Number.NaN);

function unblocked(index: OrgIndex, blocks: readonly CompiledRule[], base: Eligible): Eligible {
  let memo: RuleSetMemo<Int8Array> | undefined;
  return (i) => {
    if (!base(i)) return false;
    memo ??= blockMemos.for(index, blocks);
    const held = i < memo.values.length ? memo.values[i]! : -1;
    if (held !== -1) return held === 0;
    let b = 0;
    while (b < blocks.length && !hit(index, blocks[b]!, memo.answers[b]!, i, true)) b++;
    const blocked = b < blocks.length;
    if (i < memo.values.length && memo.known(i, blocked ? b : blocks.length - 1)) memo.values[i] = blocked ? 1 : 0;
    return !blocked;
  };
}

/**
 * Per ranking position, for the request being re-scored (one thread ranks one request at a time): its item and
 * score read once from whichever array type the strategy gave, the product of its rules' factors, its new score.
 */
let itemAt = new Int32Array(0);
let scoreAt = new Float64Array(0);
let factors = new Float64Array(0);
let rescored = new Float64Array(0);
let changedAt = new Int32Array(0);
/** Positions whose items' factors were not combined yet. */
let pendingAt = new Int32Array(0);

/** Best new score first; ties (and scores that do not compare) keep their order. */
function byNewScore(a: number, b: number): number {
  return rescored[b]! - rescored[a]! || a - b;
}

/**
 * Each item's score × the factors of the boost and bury rules it matches (a negative score ÷), re-sorted; ties
 * keep their order. A ranking comes best first, so only the items a rule changed move: they are sorted among
 * themselves and merged back into the others, which keep their order.
 */
function rescore(index: OrgIndex, weights: readonly CompiledRule[], r: Ranking | undefined): Ranking | undefined {
  if (!r) return r;
  const n = r.items.length;
  if (factors.length < n) {
    itemAt = ensureLength(itemAt, n);
    scoreAt = ensureLength(scoreAt, n);
    factors = ensureLength(factors, n);
    rescored = ensureLength(rescored, n);
    changedAt = ensureLength(changedAt, n);
    pendingAt = ensureLength(pendingAt, n);
  }
  const { items: givenItems, scores: givenScores } = r;
  for (let k = 0; k < n; k++) {
    itemAt[k] = givenItems[k]!;
    scoreAt[k] = givenScores[k]!;
  }
  const memo = weightMemos.for(index, weights);
  const combined = memo.values;
  let pending = 0;
  for (let k = 0; k < n; k++) {
    const i = itemAt[k]!;
    const f = i < combined.length ? combined[i]! : Number.NaN;
    if (f === f) factors[k] = f;
    else {
      factors[k] = 1;
      pendingAt[pending++] = k;
    }
  }
  // Rule by rule, as each rule's answers are found (what the work budget leaves depends on the order).
  for (let w = 0; w < weights.length && pending > 0; w++) {
    const rule = weights[w]!;
    const answers = memo.answers[w]!;
    const factor = rule.rule.factor!;
    for (let p = 0; p < pending; p++) {
      const k = pendingAt[p]!;
      if (hit(index, rule, answers, itemAt[k]!, false)) factors[k]! *= factor;
    }
  }
  for (let p = 0; p < pending; p++) {
    const i = itemAt[pendingAt[p]!]!;
    if (i < combined.length && memo.known(i, weights.length - 1)) combined[i] = factors[pendingAt[p]!]!;
  }
  let changed = 0;
  let ordered = true;
  for (let k = 0; k < n; k++) {
    const s = scoreAt[k]!;
    const f = factors[k]!;
    rescored[k] = f === 1 ? s : s >= 0 ? s * f : s / f;
    if (f !== 1) changedAt[changed++] = k;
    if (k > 0 && s > scoreAt[k - 1]!) ordered = false;
  }
  if (changed === 0) return r;
  const order = ordered ? mergeMoved(n, changed) : Array.from({ length: n }, (_, k) => k).sort(byNewScore);
  const items = new Int32Array(n);
  const scores = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    items[k] = itemAt[order[k]!]!;
    scores[k] = rescored[order[k]!]!;
  }
  if (typeof r.reasons === "string") return { items, scores, reasons: r.reasons };
  const reasons = new Array<string>(n);
  for (let k = 0; k < n; k++) reasons[k] = r.reasons[order[k]!]!;
  return { items, scores, reasons };
}

/** Positions 0…n−1 in byNewScore order, when the positions not in changedAt[0, changed) are in it already. */
function mergeMoved(n: number, changed: number): Int32Array {
  if (movedAt.length < n) {
    movedAt = ensureLength(movedAt, n);
    orderAt = ensureLength(orderAt, n);
  }
  const moved = movedAt;
  moved.set(changedAt.subarray(0, changed));
  // A rule set moves a few items of a ranking: sorted in place by insertion, which a comparator sort of a typed
  // array (copied out and back) costs several times more for; a long run of moved items takes the sort.
  if (changed > INSERTION_MAX) moved.subarray(0, changed).sort(byNewScore);
  else
    for (let a = 1; a < changed; a++) {
      const k = moved[a]!;
      let b = a - 1;
      while (b >= 0 && byNewScore(moved[b]!, k) > 0) {
        moved[b + 1] = moved[b]!;
        b--;
      }
      moved[b + 1] = k;
    }
  const order = orderAt;
  let next = 0;
  let c = 0;
  let out = 0;
  for (let k = 0; k < n; k++) {
    if (c < changed && changedAt[c] === k) {
      c++;
      continue;
    }
    while (next < changed && byNewScore(moved[next]!, k) < 0) order[out++] = moved[next++]!;
    order[out++] = k;
  }
  while (next < changed) order[out++] = moved[next++]!;
  return order;
}

/** Moved positions past this many are sorted by the comparator sort instead of by insertion. */
const INSERTION_MAX = 48;
/** mergeMoved's scratch: the moved positions, and the order it answers (read before the thread's next rescore). */
let movedAt = new Int32Array(0);
let orderAt = new Int32Array(0);

/**
 * The list being arranged, and promote's output, swapped after it (one thread ranks one request at a time): each
 * place's item, its score (NaN: an item from outside the ranking, scored from its neighbours at the end) and
 * where its reason comes from (k ≥ 0: the ranking's position k; −1 − j: the rule arranging[j]). Reasons are
 * strings only in the finished list.
 */
let listItems = new Int32Array(0);
let listScores = new Float64Array(0);
let listFrom = new Int32Array(0);
let outItems = new Int32Array(0);
let outScores = new Float64Array(0);
let outFrom = new Int32Array(0);
let outLength = 0;

/** Items of the list being arranged, items placed, items pinned (one thread ranks one request at a time). */
const inList = new Marks();
const used = new Marks();
const taken = new Marks();

function arrange(
  ctx: RankContext,
  promotes: readonly CompiledRule[],
  pins: readonly CompiledRule[],
  arranging: readonly CompiledRule[],
  r: Ranking | undefined,
): Ranking | undefined {
  const n = r ? r.items.length : 0;
  // Promote adds at most a page's slots per page it builds, pin one item per rule.
  const room = n + ctx.req.limit * (ctx.req.page + 2) + pins.length;
  if (listItems.length < room) {
    listItems = ensureLength(listItems, room);
    listScores = ensureLength(listScores, room);
    listFrom = ensureLength(listFrom, room);
    outItems = ensureLength(outItems, room);
    outScores = ensureLength(outScores, room);
    outFrom = ensureLength(outFrom, room);
  }
  if (r) {
    const { items, scores } = r;
    for (let k = 0; k < n; k++) {
      listItems[k] = items[k]!;
      listScores[k] = scores[k]!;
      listFrom[k] = k;
    }
  }
  let length = n;
  if (promotes.length > 0) {
    length = promote(ctx, promotes, n, pins.length > 0);
    [listItems, outItems] = [outItems, listItems];
    [listScores, outScores] = [outScores, listScores];
    [listFrom, outFrom] = [outFrom, listFrom];
  }
  if (pins.length > 0) length = pin(ctx, pins, promotes.length, length);
  if (length === 0) return undefined;
  scoreOutsiders(length);
  // Only the page reads the arranged list (its places, and one more for has_next): the rest is left here.
  const kept = Math.min(length, placesOf(ctx.req));
  const shared = r && typeof r.reasons === "string" ? r.reasons : undefined;
  let ruled = false;
  for (let k = 0; k < kept && !ruled; k++) ruled = listFrom[k]! < 0;
  let reasons: string[] | string;
  if (shared !== undefined && !ruled) reasons = shared;
  else {
    const given = r?.reasons;
    reasons = new Array<string>(kept);
    for (let k = 0; k < kept; k++) {
      const from = listFrom[k]!;
      reasons[k] = from < 0 ? arranging[-1 - from]!.reason : shared !== undefined ? shared : given![from]!;
    }
  }
  return { items: listItems.slice(0, kept), scores: listScores.slice(0, kept), reasons };
}

function markList(length: number): void {
  inList.clear();
  for (let k = 0; k < length; k++) inList.add(listItems[k]!);
}

/** Promote's state for the request being arranged (one thread ranks one request at a time). */
let quota = new Int32Array(0);
let owed = new Int32Array(0);
let ownNext = new Int32Array(0);
let outsideNext = new Int32Array(0);
let reservedBy = new Int32Array(0);
/** Per rule ri and list position k, at ri × n + k: 1 when the rule matches the item there. */
let matched = new Uint8Array(0);
const outside: (number[] | undefined)[] = [];

function place(item: number, score: number, from: number): void {
  used.add(item);
  outItems[outLength] = item;
  outScores[outLength] = score;
  outFrom[outLength++] = from;
}

/**
 * Each page of `limit` slots gives round(share × limit) of them to each promote rule (in rule order, at most the
 * whole page), its slots spread evenly over the page; each is taken by the best matching item not placed yet:
 * the ranking's first, then the rule's listed ids, then the most popular and the newest eligible items. A
 * matching item the ranking places on the page anyway counts towards its rule's share there. Built page by page
 * from the first up to the one after the request's, so page 2 continues page 1; the rest of the ranking follows
 * when `rest` (for pin, which looks for its item in the whole list). Reads the list's first n places; writes
 * promote's output and returns its length.
 */
function promote(ctx: RankContext, rules: readonly CompiledRule[], n: number, rest: boolean): number {
  const { index, req } = ctx;
  const limit = req.limit;
  const pages = Math.ceil((req.page * limit + 1) / limit);
  const count = rules.length;
  if (quota.length < count) {
    quota = ensureLength(quota, count);
    owed = ensureLength(owed, count);
    ownNext = ensureLength(ownNext, count);
    outsideNext = ensureLength(outsideNext, count);
  }
  if (reservedBy.length < limit) reservedBy = ensureLength(reservedBy, limit);
  if (matched.length < count * n) matched = ensureLength(matched, count * n);
  let free = limit;
  for (let ri = 0; ri < count; ri++) {
    const q = Math.min(free, Math.round(rules[ri]!.rule.share! * limit));
    free -= q;
    quota[ri] = q;
  }
  reservedBy.fill(-1, 0, limit);
  for (let ri = 0; ri < count; ri++) {
    const q = quota[ri]!;
    for (let j = 0; j < q; j++) {
      let s = Math.floor(((2 * j + 1) * limit) / (2 * q));
      while (reservedBy[s] !== -1) s = (s + 1) % limit;
      reservedBy[s] = ri;
    }
  }
  used.clear();
  inList.clear();
  for (let k = 0; k < n; k++) inList.add(listItems[k]!);
  outLength = 0;
  // Each rule's matching positions in the list, found before anything else is looked for (what the work budget
  // leaves for them does not depend on the order the slots are filled in); then its outsiders.
  for (let ri = 0; ri < count; ri++) {
    const rule = rules[ri]!;
    const answers = rule.items.answers(index);
    const row = ri * n;
    for (let k = 0; k < n; k++) matched[row + k] = hit(index, rule, answers, listItems[k]!, false) ? 1 : 0;
  }
  ownNext.fill(0, 0, count);
  outsideNext.fill(0, 0, count);
  outside.length = 0;
  let organic = 0;
  for (let p = 0; p < pages; p++) {
    owed.set(quota.subarray(0, count));
    for (let s = 0; s < limit; s++) {
      const ri = reservedBy[s]!;
      if (ri >= 0 && owed[ri]! > 0 && placeNext(ctx, rules, ri, n, pages)) {
        owed[ri]!--;
        continue;
      }
      while (organic < n && used.has(listItems[organic]!)) organic++;
      if (organic < n) {
        const k = organic++;
        // What a rule owes this page counts the ranking's own items of it (the first rule owed that matches).
        let counts = -1;
        for (let rj = 0; rj < count && counts < 0; rj++) if (owed[rj]! > 0 && matched[rj * n + k] === 1) counts = rj;
        if (counts >= 0) owed[counts]!--;
        place(listItems[k]!, listScores[k]!, counts >= 0 ? -1 - counts : listFrom[k]!);
        continue;
      }
      // The ranking is spent: what the rules still owe this page fills it, then the list ends.
      let owing = 0;
      while (owing < count && owed[owing]! <= 0) owing++;
      if (owing === count || !placeNext(ctx, rules, owing, n, pages)) return outLength;
      owed[owing]!--;
    }
  }
  // The rest of the ranking follows, as it was: pin looks for its item in the whole of it, whatever the page.
  if (rest) for (let k = organic; k < n; k++) if (!used.has(listItems[k]!)) place(listItems[k]!, listScores[k]!, listFrom[k]!);
  return outLength;
}

/** Places the rule's next item: its best in the list not placed yet, else its next outsider. False when it has none. */
function placeNext(ctx: RankContext, rules: readonly CompiledRule[], ri: number, n: number, pages: number): boolean {
  const row = ri * n;
  for (let k = ownNext[ri]!; k < n; k++) {
    if (matched[row + k] !== 1 || used.has(listItems[k]!)) continue;
    ownNext[ri] = k + 1;
    place(listItems[k]!, listScores[k]!, -1 - ri);
    return true;
  }
  ownNext[ri] = n;
  const theirs = (outside[ri] ??= outsiders(ctx, rules[ri]!, inList, quota[ri]! * pages));
  for (let m = outsideNext[ri]!; m < theirs.length; m++) {
    if (used.has(theirs[m]!)) continue;
    outsideNext[ri] = m + 1;
    place(theirs[m]!, Number.NaN, -1 - ri);
    return true;
  }
  outsideNext[ri] = theirs.length;
  return false;
}

/** Pin's choices for the request being arranged: per pin rule in order, its item (−1: none) and score. */
let pinItem = new Int32Array(0);
let pinScore = new Float64Array(0);
const pinExcluded = { has: (i: number): boolean => inList.has(i) || taken.has(i) };

/**
 * Pins in order of position (then of rule): each takes the best matching item not pinned yet (the list's first,
 * else as promote looks outside it) out of the list and puts it at its position, or last when the list is shorter.
 * Works on the list's first `length` places in place; returns its new length. Pin rule j's reason is
 * arranging[first + j].
 */
function pin(ctx: RankContext, rules: readonly CompiledRule[], first: number, length: number): number {
  const { index } = ctx;
  if (pinItem.length < rules.length) {
    pinItem = ensureLength(pinItem, rules.length);
    pinScore = ensureLength(pinScore, rules.length);
  }
  taken.clear();
  markList(length);
  let chosen = 0;
  for (let j = 0; j < rules.length; j++) {
    const rule = rules[j]!;
    const answers = rule.items.answers(index);
    let k = namesNoneOf(index, rule, length) ? length : 0;
    while (k < length && (taken.has(listItems[k]!) || !hit(index, rule, answers, listItems[k]!, false))) k++;
    const item = k < length ? listItems[k]! : outsiders(ctx, rule, pinExcluded, 1)[0];
    pinItem[j] = item ?? -1;
    if (item === undefined) continue;
    chosen++;
    taken.add(item);
    pinScore[j] = k < length ? listScores[k]! : NaN;
  }
  if (chosen === 0) return length;
  let kept = 0;
  for (let k = 0; k < length; k++) {
    if (taken.has(listItems[k]!)) continue;
    listItems[kept] = listItems[k]!;
    listScores[kept] = listScores[k]!;
    listFrom[kept++] = listFrom[k]!;
  }
  length = kept;
  for (let j = 0; j < rules.length; j++) {
    if (pinItem[j] === -1) continue;
    const at = Math.min(rules[j]!.rule.position! - 1, length);
    listItems.copyWithin(at + 1, at, length);
    listScores.copyWithin(at + 1, at, length);
    listFrom.copyWithin(at + 1, at, length);
    listItems[at] = pinItem[j]!;
    listScores[at] = pinScore[j]!;
    listFrom[at] = -1 - (first + j);
    length++;
  }
  return length;
}

/**
 * Whether the rule names ids none of which is in the list not pinned yet: then no item of the list is its (found
 * without testing the list's items when it names fewer than the list holds).
 */
function namesNoneOf(index: OrgIndex, rule: CompiledRule, length: number): boolean {
  const named = rule.items.namedItems(index);
  if (named === undefined || named.size > length) return false;
  for (const i of named) if (inList.has(i) && !taken.has(i)) return false;
  return true;
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
function scoreOutsiders(length: number): void {
  const scores = listScores;
  for (let k = length - 1; k >= 0; k--) {
    if (!Number.isNaN(scores[k]!)) continue;
    scores[k] = k + 1 < length ? scores[k + 1]! : NaN;
  }
  for (let k = 0; k < length; k++) if (Number.isNaN(scores[k]!)) scores[k] = k > 0 ? scores[k - 1]! : SHOWN_SCORE_MIN;
}
