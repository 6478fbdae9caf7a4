import type { Model } from "../training/model.js";
import { foldIn } from "../training/model.js";
import { userStrengths } from "../training/trainingSet.js";
import { searchVectors } from "./vectors.js";
import type { RankContext, StrategyFn } from "./types.js";

/** Folded-in vectors kept per model, so a user's vector is solved again only when their history changed. */
const FOLDED_MAX = 50_000;
const folded = new WeakMap<Model, Map<number, { version: number; vector: Float64Array | undefined }>>();

/** The user's taste vector: the trained one while their history is unchanged, else solved now from it. */
function userVector(ctx: RankContext, model: Model): Float32Array | Float64Array | undefined {
  const u = ctx.user;
  const version = ctx.index.people.version[u]!;
  const f = model.params.factors;
  if (u < model.userCount && model.userVersions[u] === version) {
    const v = model.userVectors.subarray(u * f, u * f + f);
    return isZero(v) ? undefined : v;
  }
  let cache = folded.get(model);
  if (!cache) folded.set(model, (cache = new Map()));
  const hit = cache.get(u);
  if (hit && hit.version === version) return hit.vector;
  const { items, strengths } = userStrengths(ctx.index, u, ctx.nowS);
  const vector = foldIn(model, items, strengths);
  if (cache.size >= FOLDED_MAX) cache.clear();
  cache.set(u, { version, vector });
  return vector;
}

function isZero(v: Float32Array): boolean {
  for (let k = 0; k < v.length; k++) if (v[k] !== 0) return false;
  return true;
}

/** Collaborative filtering: items whose learned vectors best match the user's (weighted ALS). */
export const personalized: StrategyFn = (ctx) => {
  const model = ctx.index.model;
  if (ctx.user < 0 || !model) return undefined;
  const v = userVector(ctx, model);
  if (!v) return undefined;
  const top = searchVectors(model, v, ctx.want, ctx.eligible, { cosine: false });
  return top.size === 0 ? undefined : { ...top.sorted(), reasons: "collaborative" };
};
