import type { Mode } from "./rank.js";

/**
 * Why a preview's page is what it is (POST /v1/recommend/preview; workers/strategies/explain.ts builds it). Only
 * the preview asks for it: a recommend request never computes any of it.
 */
export interface Explanation {
  strategy: string;
  /** What ranked: the organisation's model for `personalized` (EASE, item-item co-occurrence, ALS vectors), else the strategy's own signal. */
  model: string;
  mode: Mode;
  /** Items in the catalog, and those the request may return (after every eligibility reason below). */
  catalog_items: number;
  eligible_items: number;
  /**
   * Items each reason removed, in the order they are checked (an item counts under the first that removes it):
   * `not_in_candidates`, `inactive`, `item_type`, `context_item`, `excluded`, `seen`, `filter:{attribute}`,
   * `blocked:{rule}`. Reasons that removed nothing are left out.
   */
  removed: Array<{ reason: string; count: number; note?: string }>;
  /** The reason after which no item was left, when one was: what made the page empty. */
  emptied_by: string | null;
  /** Distinct items the strategy and its fallbacks checked for eligibility while ranking. */
  candidates_considered: number;
  fallback: {
    /** Why the fallbacks ranked some or all of the page: `no_user`, `unknown_user`, `hidden_user`, `no_signal`, `page_short`; null when they did not. */
    reason: string | null;
    /** Items the strategy itself scored above 0, and how many the page and what follows it needed. */
    own_results: number;
    wanted: number;
    /** The fallbacks whose items are on the ranking, in order. */
    filled_by: string[];
  };
  /** The organisation's rules that apply to this request (scenario, strategy, validity window), in order. */
  rules: Array<{ name: string; action: string }>;
  /** One per result, in the page's order. */
  results: ExplainedResult[];
}

export interface ExplainedResult {
  item_id: string;
  /** The strategy (or fallback) that placed it, or `rule` for an item a pin or promote brought from outside the ranking. */
  source: string;
  /** Its score from that strategy before boost and bury; null for an item a rule brought in. */
  score: number | null;
  /** 1-based, in the same request's ranking without any rule; null when that ranking did not hold it. */
  position_before_rules: number | null;
  /** The rules that changed its score or placed it. */
  rules: Array<{ name: string; action: string }>;
}
