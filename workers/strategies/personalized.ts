import type { ClosedForm, DualForm } from "../model/ease.js";
import { closedFormScores, dualScores, userSide } from "../model/ease.js";
import { itemItemScores, itemItemScoresAmong, type ItemItem } from "../model/itemItem.js";
import type { Model } from "../model/model.js";
import { foldIn } from "../model/model.js";

import { queryOf, userStrengths } from "../training/trainingSet.js";
import type { UserTop } from "../model/userTop.js";
import { searchVectors } from "../vectors/search.js";
import { TopK } from "../model/topK.js";
import type { RankContext, StrategyFn } from "./types.js";

/**
 * Folded-in vectors of users the model has no row for (new since its training), kept per model so that such a
 * user is solved again only when their history changed. Users it has a row for are written into that row.
 */
const FOLDED_MAX = 50_000;
const folded = new WeakMap<Model, Map<number, { version: number; vector: Float64Array | undefined }>>();

/**
 * The user's taste vector: the trained one while their history is unchanged, else solved now from it (fold-in).
 * A user the model has a row for gets the solved vector written into it, with the history version it stands
 * for, so the next request reads it as it reads a trained one. Kept in a map instead (up to 50,000 entries,
 * cleared when full), the vectors of a burst of changed users filled the shard's old generation by tens of MB,
 * each of them a few objects for a full collection to mark, and then dropped it all at once.
 */
function userVector(ctx: RankContext, model: Model): Float32Array | Float64Array | undefined {
  const u = ctx.user;
  const version = ctx.index.people.version[u]!;
  const f = model.params.factors;
  if (u < model.userCount) {
    const row = model.userVectors.subarray(u * f, u * f + f);
    if (model.userVersions[u] !== version) {
      const { items, strengths } = userStrengths(ctx.index, u);
      const vector = foldIn(model, items, strengths);
      if (vector) row.set(vector);
      else row.fill(0);
      model.userVersions[u] = version;
    }
    return isZero(row) ? undefined : row;
  }
  let cache = folded.get(model);
  if (!cache) folded.set(model, (cache = new Map()));
  const hit = cache.get(u);
  if (hit && hit.version === version) return hit.vector;
  const { items, strengths } = userStrengths(ctx.index, u);
  const vector = foldIn(model, items, strengths);
  if (cache.size >= FOLDED_MAX) cache.clear();
  cache.set(u, { version, vector });
  return vector;
}

function isZero(v: Float32Array): boolean {
  for (let k = 0; k < v.length; k++) if (v[k] !== 0) return false;
  return true;
}

/** A dual closed form's per-query vector (m² work) kept per user until their history changes. */
const USER_SIDES_MAX = 2_000;
const userSides = new WeakMap<DualForm, Map<number, { version: number; side: Float64Array }>>();
/** Scores of every item for the request being ranked (one thread ranks one request at a time). */
let scratch = new Float64Array(0);

/** Fills `scratch` with the closed form's scores of every item for the user; false when they have no history. */
function closedFormQuery(ctx: RankContext, model: ClosedForm): boolean {
  const { items, weights } = queryOf(ctx.index, ctx.user);
  if (items.length === 0) return false;
  if (scratch.length < model.items) scratch = new Float64Array(model.items);
  if (model.form === "primal") {
    closedFormScores(model, items, weights, scratch);
    return true;
  }
  let cache = userSides.get(model);
  if (!cache) userSides.set(model, (cache = new Map()));
  const version = ctx.index.people.version[ctx.user]!;
  let hit = cache.get(ctx.user);
  if (!hit || hit.version !== version) {
    if (cache.size >= USER_SIDES_MAX) cache.clear();
    cache.set(ctx.user, (hit = { version, side: userSide(model, items, weights) }));
  }
  dualScores(model, hit.side, items, weights, scratch);
  return true;
}

/** EASE's ranking of the items it knows, for organisations small enough to have one. */
function byClosedForm(ctx: RankContext, model: ClosedForm): TopK | undefined {
  if (!closedFormQuery(ctx, model)) return undefined;
  const top = new TopK(ctx.want);
  // The caller's candidates are all there is to rank: only they are read.
  if (ctx.listed) {
    for (const j of ctx.listed) if (j < model.items && top.wouldTake(scratch[j]!, j) && ctx.eligible(j)) top.take(j);
  } else {
    for (let j = 0; j < model.items; j++) if (top.wouldTake(scratch[j]!, j) && ctx.eligible(j)) top.take(j);
  }
  return top;
}

/** Items the item-item query touched, and their scores (zero again after each query). */
let touched = new Int32Array(0);
let sums = new Float64Array(0);
/** 1 for each of the request's candidates while its query runs (it names them); all 0 between requests. */
let wanted = new Uint8Array(0);

/**
 * The item-item model's ranking: the rows of the user's items, summed with the items' recency weights. Only the
 * items those rows reach are candidates, so a query costs its rows' length (a few thousand entries), not the
 * catalog's size.
 */
function byItemItem(ctx: RankContext, model: ItemItem, want = ctx.want, skip?: ReadonlySet<number>): TopK | undefined {
  const query = queryOf(ctx.index, ctx.user, model.queryMax);
  if (query.items.length === 0) return undefined;
  if (sums.length < model.items) {
    sums = new Float64Array(model.items);
    touched = new Int32Array(model.items);
    wanted = new Uint8Array(model.items);
  }
  const top = new TopK(want);
  if (ctx.listed) {
    // The caller's candidates are all there is to rank: only their sums are kept, not every item the rows reach.
    for (const j of ctx.listed) if (j < model.items) wanted[j] = 1;
    itemItemScoresAmong(model, query.items, query.weights, wanted, sums);
    for (const j of ctx.listed) {
      if (j >= model.items) continue;
      const s = sums[j]!;
      sums[j] = 0;
      wanted[j] = 0;
      if (s !== 0 && top.wouldTake(s, j) && ctx.eligible(j) && !skip?.has(j)) top.take(j);
    }
    return top;
  }
  const count = itemItemScores(model, query.items, query.weights, sums, touched);
  for (let t = 0; t < count; t++) {
    const j = touched[t]!;
    const s = sums[j]!;
    sums[j] = 0;
    if (top.wouldTake(s, j) && ctx.eligible(j) && !skip?.has(j)) top.take(j);
  }
  return top;
}

/**
 * The user's list kept from training (userTop.ts), read while it stands for their current history and the
 * request leaves their own items out: its first `want` eligible items, followed, when a full list holds fewer
 * than the page `need`s (a deep page, a narrow filter), by the fresh item-item ranking of the items it does not
 * hold, scaled as the list's scores are, so that every page of one ranking reads from one order. Rules asking
 * for more than the page needs re-rank the list's eligible items alone: they are the candidates whose scores are
 * at hand. Undefined when it cannot answer: no list, or a moved-on history.
 */
function byUserTop(ctx: RankContext, model: Model, itemItem: ItemItem, lists: UserTop): Sorted | undefined {
  const u = ctx.user;
  if (!ctx.req.excludeSeen || u >= model.userCount || model.userVersions[u] !== ctx.index.people.version[u]) return undefined;
  const count = lists.counts[u]!;
  if (count < 0) return undefined;
  const items = new Int32Array(Math.min(ctx.want, count));
  const scores = new Float64Array(items.length);
  let n = 0;
  const start = u * lists.perUser;
  // Read in the list's order (the query's, in full precision); the scores kept are rounded for the answer only.
  for (let k = start; k < start + count && n < ctx.want; k++) {
    const j = lists.items[k]!;
    if (!ctx.eligible(j)) continue;
    items[n] = j;
    scores[n++] = lists.scores[k]!;
  }
  // A full list that ran out of eligible items may have left more out; a shorter one held all the rows reach.
  if (n < ctx.need && count === lists.perUser) {
    const rest = byItemItem(ctx, itemItem, ctx.want - n, new Set(lists.items.subarray(start, start + count)))?.sorted();
    if (!rest) return { items: items.subarray(0, n), scores: scores.subarray(0, n) };
    const scale = lists.tailScales[u]!;
    const all = { items: new Int32Array(n + rest.items.length), scores: new Float64Array(n + rest.items.length) };
    all.items.set(items.subarray(0, n));
    all.scores.set(scores.subarray(0, n));
    all.items.set(rest.items, n);
    for (let k = 0; k < rest.items.length; k++) all.scores[n + k] = rest.scores[k]! * scale;
    return all;
  }
  return { items: items.subarray(0, n), scores: scores.subarray(0, n) };
}

type Sorted = { items: Int32Array; scores: Float64Array };

/**
 * Collaborative filtering: EASE where the organisation allows a closed form (it ranks best on small and medium
 * data), else normalised item-item co-occurrence (docs/recommender.md, Quality, says why); the items whose learned
 * vectors best match the user's (weighted ALS) only for a model that has neither.
 */
export const personalized: StrategyFn = (ctx) => {
  const model = ctx.index.model;
  if (ctx.user < 0 || !model) return undefined;
  let top: TopK | undefined;
  if (model.closedForm) top = byClosedForm(ctx, model.closedForm);
  else if (model.itemItem) {
    const ranked = (model.userTop && byUserTop(ctx, model, model.itemItem, model.userTop)) ?? byItemItem(ctx, model.itemItem)?.sorted();
    // A user whose rows reach fewer items than the page needs gets the rest from the fallbacks (rank.ts).
    return ranked && ranked.items.length > 0 ? { ...ranked, reasons: "collaborative" } : undefined;
  } else {
    const v = userVector(ctx, model);
    if (v) top = searchVectors(model, v, ctx.want, ctx.eligible, { cosine: false });
  }
  return !top || top.size === 0 ? undefined : { ...top.sorted(), reasons: "collaborative" };
};
