import { ownedResult, type RankResult } from "../../src/wire/rank.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { TopK } from "../model/topK.js";
import type { RankContext, Ranking, StrategyFn } from "./types.js";
import { work } from "./workBudget.js";

/** Rankings shared by all requests of an organisation are cached this deep and reused while data is unchanged. */
const CACHE_DEPTH = 2_000;
/** …or, while events keep arriving, for at most this long (well inside the one-second freshness goal). */
const CACHE_TTL_MS = 100;
const NEW_ARRIVALS_HALF_LIFE_S = 30 * 86_400;

interface Cached {
  builtAt: number;
  version: string;
  /** The ranking stands until this moment (seconds) even when nothing changes: see Scoring.untilS. */
  untilS: number;
  items: Int32Array;
  scores: Float64Array;
  /** True when every item with a score is in the list (no need to scan the catalog behind it). */
  complete: boolean;
  /** The scores it was built from: what a scan behind it, or the caller's list, is ranked by (a scorer may cost a pass over the items). */
  score: (item: number) => number;
  /** Rendered answers to requests with nothing of their own (same page, limit and fields): they die with the ranking. */
  pages: Map<string, RankResult>;
}

/** Scores as of one moment; `untilS`: when time alone (no event) may change the order (Infinity: never). */
interface Scoring {
  score: (item: number) => number;
  untilS: number;
}

type Scorer = (index: OrgIndex, nowS: number) => Scoring;

const caches = new WeakMap<OrgIndex, Map<string, Cached>>();
const PAGES_MAX = 64;

/**
 * A global ranking: walks the cached top of the organisation's ranking, keeping the request's eligible items,
 * and scans the whole catalog only when filters exhaust that top.
 */
function globalRanking(name: string, reason: string, scorer: Scorer, version: (index: OrgIndex) => string): GlobalStrategy {
  /** The eligible items of the cached top, and whether the top was all there is to find. */
  const fromTop = (ctx: RankContext): { ranking: Ranking | undefined; whole: boolean } => {
    const cached = cachedRanking(ctx.index, name, scorer, version(ctx.index), ctx.nowS);
    const items: number[] = [];
    const scores: number[] = [];
    for (let k = 0; k < cached.items.length && items.length < ctx.want; k++) {
      const i = cached.items[k]!;
      if (!ctx.eligible(i)) continue;
      items.push(i);
      scores.push(cached.scores[k]!);
    }
    return { ranking: items.length === 0 ? undefined : { items, scores, reasons: reason }, whole: items.length >= ctx.want || cached.complete };
  };
  const run: StrategyFn = (ctx) => {
    // The caller's candidates are all there is to rank: scored one by one, not looked for in the top or the catalog.
    if (ctx.listed) return rankListed(ctx, cachedRanking(ctx.index, name, scorer, version(ctx.index), ctx.nowS).score, reason, ctx.listed);
    const { ranking, whole } = fromTop(ctx);
    return whole ? ranking : scanAll(ctx, cachedRanking(ctx.index, name, scorer, version(ctx.index), ctx.nowS).score, reason);
  };
  const top = (index: OrgIndex, nowS: number): Int32Array => cachedRanking(index, name, scorer, version(index), nowS).items;
  const shared: SharedPages = (index, key, nowS, render) => {
    const pages = cachedRanking(index, name, scorer, version(index), nowS).pages;
    let page = pages.get(key);
    if (!page) {
      page = ownedResult(render());
      if (pages.size < PAGES_MAX) pages.set(key, page);
    }
    return page;
  };
  return { run, shared, top };
}

/** The answer shared by requests with the same sharedAnswerKey: rendered once while the shared ranking stands. */
type SharedPages = (index: OrgIndex, key: string, nowS: number, render: () => RankResult) => RankResult;

export interface GlobalStrategy {
  run: StrategyFn;
  shared: SharedPages;
  /** The cached top of the ranking (CACHE_DEPTH items, best first): the same array while the ranking stands. */
  top: (index: OrgIndex, nowS: number) => Int32Array;
}

function cachedRanking(index: OrgIndex, name: string, scorer: Scorer, version: string, nowS: number): Cached {
  let byName = caches.get(index);
  if (!byName) caches.set(index, (byName = new Map()));
  const hit = byName.get(name);
  const now = Date.now();
  if (hit && ((hit.version === version && nowS < hit.untilS) || now - hit.builtAt < CACHE_TTL_MS)) return hit;
  const { score, untilS } = scorer(index, nowS);
  const top = new TopK(CACHE_DEPTH);
  let scored = 0;
  for (let i = 0; i < index.catalog.size; i++) {
    if (!index.catalog.isActive(i)) continue;
    const s = score(i);
    if (s <= 0) continue;
    scored++;
    top.offer(s, i);
  }
  const { items, scores } = top.sorted();
  const built: Cached = {
    builtAt: now,
    version,
    untilS,
    items: Int32Array.from(items),
    scores: Float64Array.from(scores),
    complete: scored <= CACHE_DEPTH,
    score,
    pages: new Map(),
  };
  byName.set(name, built);
  return built;
}

function scanAll(ctx: RankContext, score: (item: number) => number, reason: string): Ranking | undefined {
  const top = new TopK(ctx.want);
  for (let i = 0; i < ctx.index.catalog.size; i++) {
    work.itemsVisited++;
    const s = score(i);
    if (s > 0 && top.wouldTake(s, i) && ctx.eligible(i)) top.offer(s, i);
    // Past the request's filter budget no item still to check can pass a filter or a block rule: the answer is what was found.
    if (!work.filterProbesLeft()) break;
  }
  if (top.size === 0) return undefined;
  return { ...top.sorted(), reasons: reason };
}

/** The eligible items of the caller's list (`candidates`, at most 500 ids), by the ranking's score. */
function rankListed(ctx: RankContext, score: (item: number) => number, reason: string, listed: readonly number[]): Ranking | undefined {
  const top = new TopK(ctx.want);
  for (const i of listed) {
    const s = score(i);
    if (s > 0 && top.wouldTake(s, i) && ctx.eligible(i)) top.offer(s, i);
  }
  if (top.size === 0) return undefined;
  return { ...top.sorted(), reasons: reason };
}

/** The recent window's decayed sums while they hold enough, else all-time sums (Signals.popularWindow). */
const popularScore: Scorer = (index, nowS) => {
  const { signals, catalog } = index;
  const { allTime, untilS } = signals.popularWindow(nowS, (i) => catalog.isActive(i));
  if (allTime) {
    const all = signals.popularAllTime;
    return { score: (i) => (i < all.length ? all[i]! : 0), untilS };
  }
  const raw = signals.popular.scores;
  const scale = signals.popular.scaleAt(nowS);
  return { score: (i) => (i < raw.length ? raw[i]! * scale : 0), untilS };
};

const trendScore: Scorer = (index, nowS) => ({ score: (i) => index.signals.trendScore(i, nowS), untilS: Infinity });

/**
 * Halves at NEW_ARRIVALS_HALF_LIFE_S and keeps falling with age, but slowly enough that an item ten years old
 * still shows a score above 0 at the answer's six decimals (an exponential decay would show 0 after about
 * two years): new-arrivals ends every fallback chain, so its scores are what an old catalog's page shows.
 */
const freshness: Scorer = (index, nowS) => {
  const created = index.catalog.createdS;
  return { score: (i) => 1 / (1 + Math.max(0, nowS - created[i]!) / NEW_ARRIVALS_HALF_LIFE_S), untilS: Infinity };
};

const byEvents = (index: OrgIndex) => `${index.signals.version}/${index.catalog.version}`;

export const popular = globalRanking("popular", "popular", popularScore, byEvents);
export const trending = globalRanking("trending", "trending", trendScore, byEvents);
export const newArrivals = globalRanking("new-arrivals", "new", freshness, (index) => String(index.catalog.version));
