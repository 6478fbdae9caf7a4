import { toRankRequest } from "../../src/recommend/schema.js";
import type { Strategy } from "../../src/wire/strategies.js";
import type { OrgIndex } from "../../workers/index/orgIndex.js";
import { rank } from "../../workers/strategies/rank.js";
import { DEFAULT_DEPTH } from "./metrics.js";

/** Something that answers a user with a ranked list of item ids (as deep as the evaluation's k). */
export interface Ranker {
  name: string;
  recommend(user: string): { items: string[]; fellBack: boolean };
}

/**
 * One strategy exactly as `/v1/recommend` runs it, with the user's training items removed (`exclude_seen`,
 * the protocol of published tables). `context`: the context item an item strategy is asked about.
 */
function strategyRanker(
  index: OrgIndex,
  strategy: Strategy,
  nowS: number,
  context?: (user: string) => string | undefined,
  k = DEFAULT_DEPTH,
): Ranker {
  return {
    name: context ? `${strategy} (of the user's latest item)` : strategy,
    recommend(user) {
      const contextItem = context?.(user);
      if (context && contextItem === undefined) return { items: [], fellBack: true };
      const body = { strategy, scenario: "default", user_id: user, context_item_id: contextItem, exclude_seen: true, limit: k, page: 1, fields: [] };
      const result = rank(index, toRankRequest(index.org, body), nowS);
      return { items: JSON.parse(Buffer.from(result.items).toString("utf8")) as string[], fellBack: result.mode === "fallback" };
    },
  };
}

/** The strategies that can answer "what next for this user": the user strategies, `similar` and the global ones. */
export function serverRankers(index: OrgIndex, nowS: number, latestItem: (user: string) => string | undefined, k = DEFAULT_DEPTH): Ranker[] {
  return [
    strategyRanker(index, "personalized", nowS, undefined, k),
    strategyRanker(index, "because-you-viewed", nowS, undefined, k),
    strategyRanker(index, "similar", nowS, latestItem, k),
    strategyRanker(index, "popular", nowS, undefined, k),
    strategyRanker(index, "trending", nowS, undefined, k),
  ];
}
