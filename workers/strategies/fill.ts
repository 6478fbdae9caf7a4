import { Marks } from "../index/marks.js";
import { SHOWN_SCORE_MIN } from "./page.js";
import type { RankContext, Ranking, StrategyFn } from "./types.js";

/** The items already on the page being filled (one thread ranks one request at a time). */
const taken = new Marks();

/**
 * The strategy's ranking without its items of no score, followed by the fallbacks' items (each fallback in turn,
 * each item once, each with the score and reason of the strategy that placed it) until the page and the item
 * after it (`want`) are there. An item a strategy scores 0 or less (or so little that the answer's six decimals
 * show 0) is one it has no reason to show: a user of one event, scored by EASE against 9,000 films, has a few real
 * results and thousands of zeros in catalog order, and a popular item says more than those. Undefined when neither
 * the strategy nor a fallback has an item.
 */
export function filled(ctx: RankContext, ranking: Ranking | undefined, fallbacks: readonly StrategyFn[]): Ranking | undefined {
  const own = ranking ? scored(ranking) : 0;
  if (ranking && own === ranking.items.length && own >= ctx.want) return ranking;
  const items: number[] = [];
  const scores: number[] = [];
  const reasons: string[] = [];
  taken.clear();
  if (ranking) append(ranking, own, items, scores, reasons, ctx.want);
  for (const fallback of fallbacks) {
    if (items.length >= ctx.want) break;
    const more = fallback(ctx);
    if (more) append(more, scored(more), items, scores, reasons, ctx.want);
  }
  return items.length === 0 ? undefined : { items, scores, reasons };
}

/** How many of the ranking's first items have a score the answer shows above 0 (a ranking is best first, so the rest have none). */
export function scored(r: Ranking): number {
  let n = 0;
  while (n < r.items.length && r.scores[n]! >= SHOWN_SCORE_MIN) n++;
  return n;
}

function append(r: Ranking, n: number, items: number[], scores: number[], reasons: string[], want: number): void {
  for (let k = 0; k < n && items.length < want; k++) {
    const item = r.items[k]!;
    if (taken.has(item)) continue;
    taken.add(item);
    items.push(item);
    scores.push(r.scores[k]!);
    reasons.push(typeof r.reasons === "string" ? r.reasons : r.reasons[k]!);
  }
}
