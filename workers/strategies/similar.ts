import { searchVectors, unitVector } from "./vectors.js";
import { TopK } from "./topK.js";
import type { StrategyFn } from "./types.js";

/** Learned vectors carry most of the similarity; shared attributes the rest, and all of it for new items. */
const VECTOR_SHARE = 0.7;
/** Attribute postings visited per request: fewer when vectors already supply the candidates. */
const ATTRIBUTE_VISITS = { withVector: 500, alone: 2_000 };
const VECTOR_CANDIDATES_MIN = 100;
const SAME_TYPE_BONUS = 0.05;

/** Items closest to the context item: cosine of item vectors blended with attribute (Jaccard) similarity. */
export const similar: StrategyFn = (ctx) => {
  const c = ctx.context;
  if (c < 0) return undefined;
  const { catalog, model, signals } = ctx.index;
  const v = model && unitVector(model, c);
  const byAttributes = catalog.tokens.neighbours(c, v ? ATTRIBUTE_VISITS.withVector : ATTRIBUTE_VISITS.alone);
  // Vector part of each vector candidate; removed once an attribute candidate has taken it up.
  const byVector = new Map<number, number>();
  if (model && v) {
    const near = searchVectors(model, v, Math.max(ctx.want * 4, VECTOR_CANDIDATES_MIN), (i) => i !== c && ctx.eligible(i), { cosine: true });
    near.forEach((i, s) => byVector.set(i, VECTOR_SHARE * Math.max(0, s) * signals.support(i)));
  }
  const attributeShare = v ? 1 - VECTOR_SHARE : 1;
  const top = new TopK(ctx.want);
  const offer = (i: number, s: number) => {
    const total = s + (catalog.type[i] === catalog.type[c] ? SAME_TYPE_BONUS : 0);
    if (top.wouldTake(total, i) && ctx.eligible(i)) top.offer(total, i);
  };
  const { items, scores } = byAttributes;
  for (let k = 0; k < items.length; k++) {
    const i = items[k]!;
    const vectorPart = byVector.get(i);
    if (vectorPart !== undefined) byVector.delete(i);
    offer(i, attributeShare * scores[k]! + (vectorPart ?? 0));
  }
  byVector.forEach((s, i) => offer(i, s));
  if (top.size === 0) return undefined;
  return { ...top.sorted(), reasons: `similar-to:${catalog.ids.name(c)}` };
};
