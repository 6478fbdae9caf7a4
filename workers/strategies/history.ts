import { KIND } from "../index/people.js";
import { searchVectors, unitVector } from "./vectors.js";
import { TopK } from "./topK.js";
import type { RankContext, StrategyFn } from "./types.js";

const RECENT_HALF_LIFE_S = 7 * 86_400;
const REPURCHASE_HALF_LIFE_S = 90 * 86_400;
/** because-you-viewed starts from the user's latest few items, the newest counting most. */
const ANCHORS = 5;
const NEIGHBOURS_PER_ANCHOR = 50;
/**
 * An anchor's nearest vectors lie in its own IVF cell, scanned first (other cells only when it holds too few):
 * on 20,000 items because-you-viewed scores as with two probed cells (Recall@20 0.254).
 */

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
    if (kind !== KIND.engagement || weight <= 0 || seen.has(item)) return;
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
    if (kind !== KIND.conversion || weight <= 0) return;
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

/** Neighbours of the user's latest items (co-viewed and, with a model, nearest vectors), reason: which item. */
export const becauseYouViewed: StrategyFn = (ctx) => {
  if (ctx.user < 0) return undefined;
  const anchors: number[] = [];
  newestFirst(ctx, (item, weight) => {
    if (weight > 0 && !anchors.includes(item)) anchors.push(item);
    return anchors.length < ANCHORS;
  });
  const score = new Map<number, number>();
  const because = new Map<number, { anchor: number; part: number }>();
  const add = (item: number, anchor: number, part: number) => {
    score.set(item, (score.get(item) ?? 0) + part);
    const best = because.get(item);
    if (!best || part > best.part) because.set(item, { anchor, part });
  };
  anchors.forEach((anchor, rank) => {
    const weight = 1 / (1 + rank / 2);
    for (const [item, s] of itemNeighbours(ctx, anchor)) if (item !== anchor) add(item, anchor, weight * s);
  });
  const top = new TopK(ctx.want);
  for (const [item, s] of score) if (top.wouldTake(s, item) && ctx.eligible(item)) top.offer(s, item);
  if (top.size === 0) return undefined;
  const ranked = top.sorted();
  const names = ctx.index.catalog.ids;
  return { ...ranked, reasons: Array.from(ranked.items, (i) => `similar-to:${names.name(because.get(i)!.anchor)}`) };
};

/** An item's neighbours with similarity in 0..1: co-viewed (LLR, scaled to the strongest) and nearest vectors. */
export function itemNeighbours(ctx: RankContext, item: number): Map<number, number> {
  const out = new Map<number, number>();
  let strongest = 1e-9;
  ctx.index.signals.alsoViewed.forEachNeighbour(item, (b, s) => {
    out.set(b, s);
    if (s > strongest) strongest = s;
  });
  for (const [b, s] of out) out.set(b, 0.5 * (s / strongest));
  const model = ctx.index.model;
  const v = model && unitVector(model, item);
  if (model && v) {
    const signals = ctx.index.signals;
    // Order does not matter here: the caller sums every anchor's neighbours before ranking.
    const near = searchVectors(model, v, NEIGHBOURS_PER_ANCHOR, (i) => i !== item, { cosine: true, near: item });
    for (let k = 0; k < near.size; k++) {
      const b = near.item(k);
      out.set(b, (out.get(b) ?? 0) + Math.max(0, near.score(k)) * signals.support(b));
    }
  }
  return out;
}
