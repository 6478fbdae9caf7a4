import { searchVectors, unitVector } from "./vectors.js";
import { TopK } from "./topK.js";
import type { StrategyFn } from "./types.js";

/** Learned vectors carry most of the similarity; shared attributes the rest, and all of it for new items. */
const VECTOR_SHARE = 0.7;
const ATTRIBUTE_CANDIDATES = 2_000;
const SAME_TYPE_BONUS = 0.05;

/** Items closest to the context item: cosine of item vectors blended with attribute (Jaccard) similarity. */
export const similar: StrategyFn = (ctx) => {
  const c = ctx.context;
  if (c < 0) return undefined;
  const catalog = ctx.index.catalog;
  const byAttributes = catalog.tokens.neighbours(c, ATTRIBUTE_CANDIDATES);
  const model = ctx.index.model;
  const v = model && unitVector(model, c);
  const score = new Map<number, number>();
  const vectorShare = v ? VECTOR_SHARE : 0;
  if (model && v) {
    const near = searchVectors(model, v, Math.max(ctx.want * 4, 100), (i) => i !== c && ctx.eligible(i), { cosine: true }).sorted();
    const signals = ctx.index.signals;
    near.items.forEach((i, k) => score.set(i, vectorShare * Math.max(0, near.scores[k]!) * signals.support(i)));
  }
  for (const [i, s] of byAttributes) score.set(i, (score.get(i) ?? 0) + (1 - vectorShare) * s);
  const top = new TopK(ctx.want);
  for (const [i, s] of score) {
    const total = s + (catalog.type[i] === catalog.type[c] ? SAME_TYPE_BONUS : 0);
    if (top.wouldTake(total, i) && ctx.eligible(i)) top.offer(total, i);
  }
  if (top.size === 0) return undefined;
  return { ...top.sorted(), reasons: `similar-to:${catalog.ids.name(c)}` };
};
