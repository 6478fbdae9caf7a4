import type { StepBudget } from "../index/attributeIndex.js";
import type { Catalog } from "../index/catalog.js";
import { hasVectors, type Model } from "../model/model.js";

/**
 * Learned vectors say most about whether two items are alike (users treat them alike); shared attributes the
 * rest, and all of it for an item the model has no vector for (new, or never interacted with). The blend of
 * `similar`, for the same reason.
 */
const VECTOR_SHARE = 0.7;

/**
 * How alike two items are, 0 to 1: the cosine of their learned vectors (below 0 counted as 0) blended with the
 * Jaccard similarity of their attribute tokens; the attributes alone when either has no vector. At most
 * `factors` multiply-adds and 2 × SKETCH_SIZE merge steps, counted in `steps`: once they reach their max, the
 * attributes count as 0.
 */
export function itemSimilarity(catalog: Catalog, model: Model | undefined, a: number, b: number, steps: StepBudget): number {
  const attributes = steps.n < steps.max ? catalog.tokens.similarity(a, b, steps) : 0;
  const cosine = model ? vectorCosine(model, a, b) : Number.NaN;
  if (Number.isNaN(cosine)) return attributes;
  return VECTOR_SHARE * Math.max(0, cosine) + (1 - VECTOR_SHARE) * attributes;
}

/** The cosine of two items' int8 vectors, or NaN when either has none. */
function vectorCosine(model: Model, a: number, b: number): number {
  if (a >= model.itemCount || b >= model.itemCount || !hasVectors(model)) return Number.NaN;
  const ra = model.rowOf[a]!;
  const rb = model.rowOf[b]!;
  // cosineScales[r] is 1/|codes of row r|, 0 for an item without a learned position.
  const scale = model.cosineScales[ra]! * model.cosineScales[rb]!;
  if (scale === 0) return Number.NaN;
  const f = model.params.factors;
  const codes = model.itemCodes;
  // Products of int8 codes summed in int32, exactly (|sum| ≤ f × 128², far inside it for any factor count a
  // model has): the same dot in any order, so two sums, four codes a step.
  let even = 0;
  let odd = 0;
  let pa = ra * f;
  let pb = rb * f;
  const end = pa + f;
  for (; pa + 4 <= end; pa += 4, pb += 4) {
    even = (even + Math.imul(codes[pa]!, codes[pb]!) + Math.imul(codes[pa + 2]!, codes[pb + 2]!)) | 0;
    odd = (odd + Math.imul(codes[pa + 1]!, codes[pb + 1]!) + Math.imul(codes[pa + 3]!, codes[pb + 3]!)) | 0;
  }
  for (; pa < end; pa++, pb++) even = (even + Math.imul(codes[pa]!, codes[pb]!)) | 0;
  return (even + odd) * scale;
}
