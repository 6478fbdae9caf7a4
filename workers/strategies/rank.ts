import { sharedAnswerKey, type Mode, type RankRequest, type RankResult } from "../../src/wire/rank.js";
import type { Strategy } from "../../src/wire/strategies.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { Marks } from "../index/marks.js";
import { eligibility } from "./eligibility.js";
import { newArrivals, popular, trending, type GlobalStrategy } from "./global.js";
import { becauseYouViewed, buyAgain, recentlyViewed } from "./history.js";
import { page } from "./page.js";
import { personalized } from "./personalized.js";
import { alsoViewed, frequentlyBoughtTogether } from "./related.js";
import { similar } from "./similar.js";
import type { RankContext, StrategyFn } from "./types.js";
import { work } from "./workBudget.js";

const STRATEGY: Record<Strategy, { run: StrategyFn; mode: Mode; needsUser: boolean; shared?: GlobalStrategy["shared"] }> = {
  personalized: { run: personalized, mode: "personalized", needsUser: true },
  "because-you-viewed": { run: becauseYouViewed, mode: "personalized", needsUser: true },
  "recently-viewed": { run: recentlyViewed, mode: "personalized", needsUser: true },
  "buy-again": { run: buyAgain, mode: "personalized", needsUser: true },
  similar: { run: similar, mode: "contextual", needsUser: false },
  "frequently-bought-together": { run: frequentlyBoughtTogether, mode: "contextual", needsUser: false },
  "also-viewed": { run: alsoViewed, mode: "contextual", needsUser: false },
  popular: { ...popular, mode: "global", needsUser: false },
  trending: { ...trending, mode: "global", needsUser: false },
  "new-arrivals": { ...newArrivals, mode: "global", needsUser: false },
};

/** Runs the request's strategy on the organisation's index; no signal (or a hidden user) falls back to popular. */
export function rank(index: OrgIndex, req: RankRequest, nowS = Date.now() / 1000): RankResult {
  work.reset();
  const shared = STRATEGY[req.strategy].shared;
  const key = shared && sharedAnswerKey(req);
  if (shared && key) return shared(index, key, nowS, () => rankFresh(index, req, nowS));
  return rankFresh(index, req, nowS);
}

function rankFresh(index: OrgIndex, req: RankRequest, nowS: number): RankResult {
  const user = req.userId === undefined ? -1 : index.people.find(req.userId);
  const context = req.contextItemId === undefined ? -1 : index.catalog.ids.find(req.contextItemId);
  const seen = req.excludeSeen && user >= 0 ? seenBy(index, user) : undefined;
  const ctx: RankContext = { index, req, user, context, eligible: eligibility(index, req, seen), want: req.page * req.limit + 1, nowS };
  const chosen = STRATEGY[req.strategy];
  const hidden = chosen.needsUser && user >= 0 && index.people.isHidden(user);
  let mode = chosen.mode;
  let ranking = hidden ? undefined : chosen.run(ctx);
  if (!ranking) {
    mode = "fallback";
    ranking = req.strategy === "popular" ? undefined : popular.run(ctx);
  }
  return page(index, req, mode, ranking);
}

/** The request being ranked's seen items (one thread ranks one request at a time): no set built per request. */
const seenMarks = new Marks();

/** Items the user engaged with or converted on (positively), in their history or before it: what `exclude_seen` leaves out. */
function seenBy(index: OrgIndex, user: number): Marks {
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
