import { sharedAnswerKey, type Mode, type RankRequest, type RankResult } from "../../src/wire/rank.js";
import type { Strategy } from "../../src/wire/strategies.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { Marks } from "../index/marks.js";
import { eligibility, listedItems } from "./eligibility.js";
import { overContexts } from "./cart.js";
import { diversified, rankingDepth } from "./diversify.js";
import { filled, scored } from "./fill.js";
import { newArrivals, popular, trending, type GlobalStrategy } from "./global.js";
import { becauseYouViewed, buyAgain, recentlyViewed } from "./history.js";
import { page } from "./page.js";
import { personalized } from "./personalized.js";
import { alsoViewed, frequentlyBoughtTogether } from "./coOccurring.js";
import { similar } from "./similar.js";
import type { Eligible } from "./eligibility.js";
import type { RankContext, Ranking, StrategyFn } from "./types.js";
import { work } from "./workBudget.js";
import { rulesFor, type RequestRules } from "./rules/requestRules.js";

/**
 * What fills a page the strategy leaves short, in order (fill.ts). The chain ends in new-arrivals, which ranks
 * every active item, so a catalog with no events still gets a full page.
 */
const FALLBACK = [popular.run, newArrivals.run];

export interface StrategyRow {
  run: StrategyFn;
  mode: Mode;
  needsUser: boolean;
  fallbacks: StrategyFn[];
  /**
   * A record of the user's own items (recently viewed, bought before): shown as it is, and only replaced by the
   * fallbacks when it is empty, since items the user never touched do not belong in it.
   */
  record?: true;
  shared?: GlobalStrategy["shared"];
}

const STRATEGY: Record<Strategy, StrategyRow> = {
  personalized: { run: personalized, mode: "personalized", needsUser: true, fallbacks: FALLBACK },
  "because-you-viewed": { run: becauseYouViewed, mode: "personalized", needsUser: true, fallbacks: FALLBACK },
  "recently-viewed": { run: recentlyViewed, mode: "personalized", needsUser: true, fallbacks: FALLBACK, record: true },
  "buy-again": { run: buyAgain, mode: "personalized", needsUser: true, fallbacks: FALLBACK, record: true },
  similar: { run: similar, mode: "contextual", needsUser: false, fallbacks: FALLBACK },
  "frequently-bought-together": { run: frequentlyBoughtTogether, mode: "contextual", needsUser: false, fallbacks: FALLBACK },
  "also-viewed": { run: alsoViewed, mode: "contextual", needsUser: false, fallbacks: FALLBACK },
  popular: { ...popular, mode: "global", needsUser: false, fallbacks: [newArrivals.run] },
  trending: { ...trending, mode: "global", needsUser: false, fallbacks: FALLBACK },
  "new-arrivals": { ...newArrivals, mode: "global", needsUser: false, fallbacks: [] },
};

/**
 * Runs the request's strategy on the organisation's index. A page it leaves short is filled from its fallbacks;
 * with nothing of its own (no signal, or a hidden user) the answer is the fallbacks' alone, in mode `fallback`.
 * The answer's bytes are lent until this thread's next rank (page.ts).
 */
export function rank(index: OrgIndex, req: RankRequest, nowS = Date.now() / 1000): RankResult {
  work.reset();
  const rules = rulesFor(index, req, nowS);
  const shared = STRATEGY[req.strategy].shared;
  // Rules make an answer of the request's own (they may change within the shared ranking's life).
  const key = shared && rules.none && sharedAnswerKey(req);
  if (shared && key) return shared(index, key, nowS, () => rankFresh(index, req, nowS, rules));
  return rankFresh(index, req, nowS, rules);
}

/**
 * What the preview's explanation (explain.ts) watches of one ranking; normal requests pass none, and pay a
 * branch for it.
 */
export interface RankTap {
  /** The strategy's row, its ranking functions wrapped to record what each placed (before boost and bury). */
  row(row: StrategyRow): StrategyRow;
  eligible(base: Eligible): Eligible;
  done(ctx: RankContext, facts: { user: number; hidden: boolean; own: number; mode: Mode; ranking: Ranking | undefined }): void;
}

/** Rules (workers/strategies/rules/): block in eligibility, boost/bury on each strategy's scores, promote/pin before the page. */
export function rankFresh(index: OrgIndex, req: RankRequest, nowS: number, rules: RequestRules, tap?: RankTap): RankResult {
  const user = req.userId === undefined ? -1 : index.people.find(req.userId);
  const contexts = contextsOf(index, req);
  const context = contexts.length > 0 ? contexts[0]! : -1;
  const seen = req.excludeSeen && user >= 0 ? seenBy(index, user) : undefined;
  const listed = req.candidates && listedItems(index, req.candidates);
  const ruled = rules.eligible(eligibility(index, req, seen, contexts, listed));
  const eligible = tap ? tap.eligible(ruled) : ruled;
  const need = rankingDepth(req);
  const ctx: RankContext = { index, req, user, context, eligible, need, want: rules.depth(need), nowS, listed };
  const chosen = rules.strategy(tap ? tap.row(STRATEGY[req.strategy]) : STRATEGY[req.strategy]);
  const hidden = chosen.needsUser && user >= 0 && index.people.isHidden(user);
  const ranking = hidden
    ? undefined
    : contexts.length > 1 && chosen.mode === "contextual"
      ? overContexts(chosen.run, ctx, contexts)
      : chosen.run(ctx);
  // A record's scores only order it (recency), and an old record's round to 0: every item of it stands.
  const own = !ranking ? 0 : chosen.record ? ranking.items.length : scored(ranking);
  const mode = own > 0 ? chosen.mode : "fallback";
  // Boost and bury re-scored each ranking (rules.strategy); variety re-ranks; promote and pin place last.
  const final =
    chosen.record && own > 0
      ? rules.arranged(ctx, diversified(ctx, ranking))
      : rules.arranged(ctx, diversified(ctx, filled(ctx, own > 0 ? ranking : undefined, chosen.fallbacks)));
  tap?.done(ctx, { user, hidden, own, mode, ranking: final });
  return page(index, req, mode, final);
}

/** The fallbacks' names, for the preview's explanation. */
export const FALLBACK_NAMES = new Map<StrategyFn, Strategy>([
  [popular.run, "popular"],
  [newArrivals.run, "new-arrivals"],
]);

/** The request's context items the catalog knows, interned, each once (unknown ones leave the request without them). */
export function contextsOf(index: OrgIndex, req: RankRequest): number[] {
  const ids = req.contextItemIds ?? (req.contextItemId === undefined ? [] : [req.contextItemId]);
  const out: number[] = [];
  for (const id of ids) {
    const i = index.catalog.ids.find(id);
    if (i >= 0 && !out.includes(i)) out.push(i);
  }
  return out;
}

/** The request being ranked's seen items (one thread ranks one request at a time): no set built per request. */
const seenMarks = new Marks();

/** Items the user engaged with or converted on (positively), in their history or before it: what `exclude_seen` leaves out. */
export function seenBy(index: OrgIndex, user: number): Marks {
  const h = index.people.history;
  seenMarks.clear();
  // Columns read once: RowStores of several shapes make `h.cols.…` a megamorphic load inside the loop.
  const { key, value } = h.cols;
  const start = h.start(user);
  const end = start + h.size(user);
  for (let k = start; k < end; k++) if (value[k]! > 0) seenMarks.add(key[k]!);
  const e = index.people.earlier;
  const earlierKeys = e.cols.key;
  const earlierValues = e.cols.value;
  for (let k = e.start(user); k < e.start(user) + e.size(user); k++) if (earlierValues[k]! > 0) seenMarks.add(earlierKeys[k]!);
  return seenMarks;
}
