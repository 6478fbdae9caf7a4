import { toRankRequest, type Strategy } from "../../../src/recommend/schema.js";
import type { OrgIndex } from "../../../workers/index/orgIndex.js";
import { rank } from "../../../workers/strategies/index.js";

/** Something that answers a user with a ranked list of item ids (20 deep). */
export interface Ranker {
  name: string;
  recommend(user: string): { items: string[]; fellBack: boolean };
}

export const DEPTH = 20;

/**
 * One strategy exactly as `/v1/recommend` runs it: the request goes through the server's own defaults
 * (`toRankRequest`, so `exclude_seen` is what a client gets without asking) unless `excludeSeen` is given.
 */
export function strategyRanker(index: OrgIndex, strategy: Strategy, nowS: number, excludeSeen?: boolean): Ranker {
  const suffix = excludeSeen === undefined ? "" : ` (exclude_seen ${excludeSeen})`;
  return {
    name: strategy + suffix,
    recommend(user) {
      const req = toRankRequest(index.org, { strategy, user_id: user, exclude_seen: excludeSeen, limit: DEPTH, page: 1, fields: [] });
      const result = rank(index, req, nowS);
      return { items: JSON.parse(Buffer.from(result.items).toString("utf8")) as string[], fellBack: result.mode === "fallback" };
    },
  };
}

/** The user strategies and popular at their defaults, plus the variants worth comparing against them. */
export function serverRankers(index: OrgIndex, nowS: number): Ranker[] {
  return [
    strategyRanker(index, "personalized", nowS),
    strategyRanker(index, "personalized", nowS, false),
    strategyRanker(index, "because-you-viewed", nowS),
    strategyRanker(index, "recently-viewed", nowS),
    strategyRanker(index, "buy-again", nowS),
    strategyRanker(index, "popular", nowS),
    strategyRanker(index, "popular", nowS, true),
  ];
}
