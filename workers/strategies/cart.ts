import { TopK } from "../model/topK.js";
import type { RankContext, Ranking, StrategyFn } from "./types.js";

/**
 * An item strategy asked about several context items (`context_item_ids`: a cart): the strategy's ranking of each
 * context item, its best `want`, summed per item, so that an item close to several of them comes first. Each
 * item keeps the reason of the context item that gave it the most. The runs share the request's work budget
 * (workBudget.ts), so fifty context items cost at most what the budget allows, not fifty requests.
 */
export function overContexts(run: StrategyFn, ctx: RankContext, contexts: readonly number[]): Ranking | undefined {
  const sums = new Map<number, { score: number; best: number; reason: string }>();
  for (const context of contexts) {
    const r = run({ ...ctx, context });
    if (!r) continue;
    for (let k = 0; k < r.items.length; k++) {
      const score = r.scores[k]!;
      if (!(score > 0)) continue;
      const item = r.items[k]!;
      const reason = typeof r.reasons === "string" ? r.reasons : r.reasons[k]!;
      const sum = sums.get(item);
      if (!sum) sums.set(item, { score, best: score, reason });
      else {
        sum.score += score;
        if (score > sum.best) {
          sum.best = score;
          sum.reason = reason;
        }
      }
    }
  }
  if (sums.size === 0) return undefined;
  const top = new TopK(ctx.want);
  for (const [item, sum] of sums) top.offer(sum.score, item);
  const { items, scores } = top.sorted();
  return { items, scores, reasons: Array.from(items, (i) => sums.get(i)!.reason) };
}
