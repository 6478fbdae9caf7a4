import { FAMILY } from "../../src/wire/eventFamily.js";
import type { Model } from "../model/model.js";
import { END, slotCosine, slotItem } from "../model/neighbourSlots.js";
import { searchVectors, unitVector } from "../vectors/search.js";
import { ScoreBoard } from "./scoreBoard.js";
import { TopK } from "../model/topK.js";
import type { RankContext, StrategyFn } from "./types.js";

const RECENT_HALF_LIFE_S = 7 * 86_400;
const REPURCHASE_HALF_LIFE_S = 90 * 86_400;
/** because-you-viewed starts from the user's latest few items, the newest counting most. */
const ANCHORS = 5;
/**
 * An anchor's nearest vectors are the head of its neighbour list. Without lists (catalogs too large for them)
 * they are searched in its own IVF cell first (other cells only when it holds too few): on 20,000 items
 * because-you-viewed scored as with two probed cells (Recall@20 0.254).
 */
const NEIGHBOURS_PER_ANCHOR = 50;

/** Calls visit(item, weight, time, kind) over the user's kept history, newest first; stop by returning false. */
function newestFirst(ctx: RankContext, visit: (item: number, weight: number, atS: number, kind: number) => boolean | void): void {
  const h = ctx.index.people.history;
  const start = h.start(ctx.user);
  for (let k = start + h.size(ctx.user) - 1; k >= start; k--) {
    if (visit(h.cols.key[k]!, h.cols.value[k]!, h.cols.time[k]!, h.cols.kind[k]!) === false) return;
  }
}

/** The user's own engaged-with items, newest first, each once. */
export const recentlyViewed: StrategyFn = (ctx) => {
  if (ctx.user < 0) return undefined;
  const seen = new Set<number>();
  const items: number[] = [];
  const scores: number[] = [];
  newestFirst(ctx, (item, weight, atS, kind) => {
    if (kind !== FAMILY.engagement || weight <= 0 || seen.has(item)) return;
    seen.add(item);
    if (!ctx.eligible(item)) return;
    items.push(item);
    scores.push(2 ** (-Math.max(0, ctx.nowS - atS) / RECENT_HALF_LIFE_S));
    return items.length < ctx.want;
  });
  return items.length === 0 ? undefined : { items, scores, reasons: "recently-viewed" };
};

/** Items the user converted on, by how often they bought them, how often buyers re-buy them, and how recently. */
export const buyAgain: StrategyFn = (ctx) => {
  if (ctx.user < 0) return undefined;
  const counts = new Map<number, { n: number; lastS: number }>();
  newestFirst(ctx, (item, weight, atS, kind) => {
    if (kind !== FAMILY.conversion || weight <= 0) return;
    const c = counts.get(item);
    if (c) c.n++;
    else counts.set(item, { n: 1, lastS: atS });
  });
  const top = new TopK(ctx.want);
  for (const [item, { n, lastS }] of counts) {
    const recency = 2 ** (-Math.max(0, ctx.nowS - lastS) / REPURCHASE_HALF_LIFE_S);
    const score = ctx.index.signals.repeatRate(item) * Math.log2(1 + n) * recency;
    if (top.wouldTake(score, item) && ctx.eligible(item)) top.take(item);
  }
  return top.size === 0 ? undefined : { ...top.sorted(), reasons: "bought-before" };
};

/** The request's summed neighbour scores (tagged with the anchor of each item's largest part), and one anchor's. */
const total = new ScoreBoard();
const perAnchor = new ScoreBoard();

/** Neighbours of the user's latest items (co-viewed and, with a model, nearest vectors), reason: which item. */
export const becauseYouViewed: StrategyFn = (ctx) => {
  if (ctx.user < 0) return undefined;
  const anchors: number[] = [];
  newestFirst(ctx, (item, weight) => {
    if (weight > 0 && !anchors.includes(item)) anchors.push(item);
    return anchors.length < ANCHORS;
  });
  total.clear();
  anchors.forEach((anchor, rank) => {
    const weight = 1 / (1 + rank / 2);
    const near = itemNeighbours(ctx, anchor);
    for (let k = 0; k < near.size; k++) {
      const item = near.items[k]!;
      if (item !== anchor) total.add(item, weight * near.sum(item), anchor);
    }
  });
  const top = new TopK(ctx.want);
  for (let k = 0; k < total.size; k++) {
    const item = total.items[k]!;
    if (top.wouldTake(total.sum(item), item) && ctx.eligible(item)) top.take(item);
  }
  if (top.size === 0) return undefined;
  const ranked = top.sorted();
  const names = ctx.index.catalog.ids;
  return { ...ranked, reasons: Array.from(ranked.items, (i) => `similar-to:${names.name(total.bestTag(i))}`) };
};

/**
 * An item's neighbours with similarity in 0..1: co-viewed (LLR, scaled to the strongest) and nearest vectors.
 * The answer lives in a board this module reuses: it holds until the next call.
 */
export function itemNeighbours(ctx: RankContext, item: number): ScoreBoard {
  const out = perAnchor;
  out.clear();
  let strongest = 1e-9;
  ctx.index.signals.alsoViewed.forEachNeighbour(item, (b, s) => {
    out.add(b, s);
    if (s > strongest) strongest = s;
  });
  for (let k = 0; k < out.size; k++) {
    const b = out.items[k]!;
    out.setSum(b, 0.5 * (out.sum(b) / strongest));
  }
  const model = ctx.index.model;
  if (model) addNearestVectors(ctx, model, item, out);
  return out;
}

/** Adds the item's nearest items by vector to `out`, cosine × support: from its neighbour list, or searched. */
function addNearestVectors(ctx: RankContext, model: Model, item: number, out: ScoreBoard): void {
  const signals = ctx.index.signals;
  const table = model.neighbours;
  if (table) {
    // An item newer than the model has no list; one without a learned vector has an empty one.
    if (item >= model.itemCount) return;
    const base = item * table.perItem;
    for (let k = 0; k < NEIGHBOURS_PER_ANCHOR; k++) {
      const slot = table.slots[base + k]!;
      if (slot === END) break;
      const b = slotItem(slot);
      out.add(b, Math.max(0, slotCosine(slot)) * signals.support(b));
    }
    return;
  }
  const v = unitVector(model, item);
  if (!v) return;
  // Order does not matter here: the caller sums every anchor's neighbours before ranking.
  const near = searchVectors(model, v, NEIGHBOURS_PER_ANCHOR, (i) => i !== item, { cosine: true, near: item });
  for (let k = 0; k < near.size; k++) {
    const b = near.item(k);
    out.add(b, Math.max(0, near.score(k)) * signals.support(b));
  }
}
