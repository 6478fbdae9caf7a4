import type { CoOccurrence } from "../index/cooccurrence.js";
import type { Signals } from "../index/signals.js";
import { TopK } from "../model/topK.js";
import type { StrategyFn } from "./types.js";

/** Items co-occurring with the context item, ranked by log-likelihood ratio (so popularity alone does not win). */
function coOccurring(pick: (s: Signals) => CoOccurrence, reasonPrefix: string): StrategyFn {
  return (ctx) => {
    if (ctx.context < 0) return undefined;
    const top = new TopK(ctx.want);
    pick(ctx.index.signals).forEachNeighbour(ctx.context, (item, score) => {
      if (top.wouldTake(score, item) && ctx.eligible(item)) top.take(item);
    });
    if (top.size === 0) return undefined;
    return { ...top.sorted(), reasons: `${reasonPrefix}:${ctx.index.catalog.ids.name(ctx.context)}` };
  };
}

export const frequentlyBoughtTogether = coOccurring((s) => s.boughtTogether, "bought-with");
export const alsoViewed = coOccurring((s) => s.alsoViewed, "viewed-with");
