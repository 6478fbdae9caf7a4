import { ensureLength } from "../index/growable.js";
import { Marks } from "../index/marks.js";
import type { Model } from "../model/model.js";
import { END, slotCosine, slotItem } from "../model/neighbourSlots.js";
import { searchVectors, unitVector } from "../vectors/search.js";
import { TopK } from "../model/topK.js";
import type { RankContext, StrategyFn } from "./types.js";
import { work, WORK_BUDGET } from "./workBudget.js";

/** Learned vectors carry most of the similarity; shared attributes the rest, and all of it for new items. */
const VECTOR_SHARE = 0.7;
const VECTOR_CANDIDATES_MIN = 100;
/** The context item's own cell and the next hold nearly all of its nearest vectors (docs/recommender.md gives the recall). */
const VECTOR_PROBES = 2;
/**
 * Attribute postings walked per request: with vectors, only for items that match on attributes alone (the
 * vector candidates' attribute similarity is computed directly); without, for all candidates.
 */
const ATTRIBUTE_VISITS = { withVector: 100, alone: WORK_BUDGET.attributeVisits };
const SAME_TYPE_BONUS = 0.05;
/** The vector candidates of the request being ranked (one thread ranks one request at a time). */
const offered = new Marks();

/**
 * The vector candidates' fields, gathered before they are blended: a candidate's support, tokens and type
 * each sit in another array and likely miss the cache, and loops that do not branch on what they read let
 * the reads for many candidates overlap instead of waiting one after another.
 */
class Candidates {
  items = new Int32Array(256);
  vector = new Float64Array(256);
  attribute = new Float64Array(256);
  sameType = new Uint8Array(256);

  gather(ctx: RankContext, c: number, near: TopK): number {
    const n = near.size;
    this.room(n);
    const { items, vector, attribute, sameType } = this;
    const { catalog, signals } = ctx.index;
    const type = catalog.type[c];
    for (let k = 0; k < n; k++) {
      const i = near.item(k);
      items[k] = i;
      offered.add(i);
      vector[k] = VECTOR_SHARE * Math.max(0, near.score(k)) * signals.support(i);
      sameType[k] = catalog.type[i] === type ? 1 : 0;
    }
    catalog.tokens.similarities(c, items, n, attribute, work.comparisons);
    return n;
  }

  private room(n: number): void {
    if (n <= this.items.length) return;
    this.items = ensureLength(this.items, n);
    this.vector = ensureLength(this.vector, n);
    this.attribute = ensureLength(this.attribute, n);
    this.sameType = ensureLength(this.sameType, n);
  }
}

const candidates = new Candidates();

/**
 * The eligible items among the context item's precomputed neighbours (see neighbourTable), or undefined when
 * the list cannot stand in for a search: no list, a page deeper than it reaches, or a filter that leaves fewer
 * than half the candidates wanted (a search then finds them further out).
 */
function listedCandidates(ctx: RankContext, model: Model, c: number, wanted: number): TopK | undefined {
  const table = model.neighbours;
  if (!table) return undefined;
  const { perItem, slots } = table;
  const top = new TopK(wanted);
  const base = c * perItem;
  let listed = 0;
  for (; listed < perItem; listed++) {
    const slot = slots[base + listed]!;
    if (slot === END) break;
    const i = slotItem(slot);
    if (ctx.eligible(i)) top.offer(slotCosine(slot), i);
  }
  // A list that ends early holds every item with a vector: nothing further out to find.
  if (listed === perItem && (wanted > perItem || top.size * 2 < wanted)) return undefined;
  return top;
}

/**
 * The `wanted` eligible items nearest to c, from its neighbour list (by vector, or by co-occurrence in a model of
 * item-item rows) or else by searching the vectors, when the model has them.
 */
function vectorCandidates(ctx: RankContext, model: Model, c: number, v: Float64Array | undefined, wanted: number): TopK | undefined {
  if (c >= model.itemCount) return undefined;
  const listed = listedCandidates(ctx, model, c, wanted);
  if (listed || !v) return listed;
  return searchVectors(model, v, wanted, (i) => i !== c && ctx.eligible(i), { cosine: true, firstProbes: VECTOR_PROBES });
}

/**
 * Items closest to the context item: the cosine of item vectors (or, in a model of item-item rows, of the items'
 * users) blended with attribute (Jaccard) similarity.
 */
export const similar: StrategyFn = (ctx) => {
  const c = ctx.context;
  if (c < 0) return undefined;
  const { catalog, model } = ctx.index;
  const v = model && unitVector(model, c);
  const top = new TopK(ctx.want);
  const type = catalog.type[c];
  offered.clear();
  // Loops over the candidates rather than callbacks: each callback would box its fractional score.
  const near = model && vectorCandidates(ctx, model, c, v, Math.max(ctx.want * 4, VECTOR_CANDIDATES_MIN));
  // Attributes take their share alone for an item the model cannot place (new, or without a learned position).
  const placed = v !== undefined || (near !== undefined && near.size > 0);
  if (near) {
    // Every vector candidate already passed `eligible`.
    const n = candidates.gather(ctx, c, near);
    const { items, vector, attribute, sameType } = candidates;
    for (let k = 0; k < n; k++) {
      const total = vector[k]! + (1 - VECTOR_SHARE) * attribute[k]! + (sameType[k] === 1 ? SAME_TYPE_BONUS : 0);
      if (top.wouldTake(total, items[k]!)) top.take(items[k]!);
    }
  }
  const attributeShare = placed ? 1 - VECTOR_SHARE : 1;
  const byAttributes = catalog.tokens.neighbours(c, placed ? ATTRIBUTE_VISITS.withVector : ATTRIBUTE_VISITS.alone, work.comparisons);
  for (let k = 0; k < byAttributes.size; k++) {
    const i = byAttributes.items[k]!;
    if (offered.has(i)) continue;
    const total = attributeShare * byAttributes.scores[k]! + (catalog.type[i] === type ? SAME_TYPE_BONUS : 0);
    if (top.wouldTake(total, i) && ctx.eligible(i)) top.take(i);
  }
  if (top.size === 0) return undefined;
  return { ...top.sorted(), reasons: `similar-to:${catalog.ids.name(c)}` };
};
