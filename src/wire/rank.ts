import { GLOBAL_STRATEGIES, type Strategy } from "./strategies.js";

type Scalar = string | number | boolean;
/** A filter's value as validated by the recommend schema (src/recommend/schema.ts checks that the two agree). */
export type FilterValue = Scalar | Scalar[] | { min?: number | undefined; max?: number | undefined };

/** What a recommender thread is asked: the validated body with defaults settled, for one organisation. */
export interface RankRequest {
  org: number;
  strategy: Strategy;
  userId: string | undefined;
  /** The context item, or the first of several (`context_item_ids`: a cart); the served log records this one. */
  contextItemId: string | undefined;
  /** Every context item when the request names several; undefined for one or none. */
  contextItemIds: string[] | undefined;
  /** Only these items may be ranked (`candidates`): a re-ranking of the caller's list, packed (idList.ts). */
  candidates: Uint8Array | undefined;
  /** 0 < diversity ≤ 1 (`diversity`; undefined for 0): variety traded for relevance on each page. */
  diversity: number | undefined;
  /** `max_per`: attribute name → at most that many results per value of it on a page. */
  maxPer: Record<string, number> | undefined;
  itemType: string | undefined;
  filters: Record<string, FilterValue> | undefined;
  excludeItemIds: string[] | undefined;
  excludeSeen: boolean;
  fields: string[] | undefined;
  limit: number;
  page: number;
  /** The place on the site (`scenario`); rules may be limited to some. Undefined: `default`. */
  scenario?: string | undefined;
}

export type Mode = "personalized" | "contextual" | "global" | "fallback";

/**
 * A recommender thread's answer: the page already rendered as JSON there (each result's `item_id`, `score`,
 * `reason`, `metadata`; spec 2.4), so the front thread splices bytes instead of rebuilding objects.
 */
export interface RankResult {
  mode: Mode;
  /** How many items the page holds. */
  count: number;
  /**
   * The page's item ids in order as a JSON array, in UTF-8: `recommended_items`, and the attribution log's
   * `items`. Bytes rather than strings, so the front thread never decodes an id.
   */
  items: Uint8Array;
  /** The `results` array as JSON, in UTF-8. */
  results: Uint8Array;
  hasNext: boolean;
}

/**
 * A RankResult whose bytes are its own. rank() lends its page's bytes (valid until the thread's next page);
 * what keeps a page beyond that keeps this copy.
 */
export function ownedResult(r: RankResult): RankResult {
  const both = new Uint8Array(r.results.length + r.items.length);
  both.set(r.results);
  both.set(r.items, r.results.length);
  return { ...r, results: both.subarray(0, r.results.length), items: both.subarray(r.results.length) };
}

/**
 * A global strategy asked for nothing of the caller's own (no filters, type, exclusions or seen items): every
 * such request of the organisation with the same page, limit, fields, diversity and max_per has the same answer, so it is shared.
 * `fields` goes in as JSON, last (`max_per` as JSON before it): distinct lists (and no list, `null`) never make one key, whatever their names hold.
 */
export function sharedAnswerKey(req: RankRequest): string | undefined {
  if (!GLOBAL_STRATEGIES.has(req.strategy) || req.filters || req.itemType !== undefined || req.excludeItemIds?.length || req.candidates)
    return undefined;
  // A context item is left out of its own answer, so a request naming one has an answer of its own.
  if (req.contextItemId !== undefined) return undefined;
  if (req.excludeSeen && req.userId !== undefined) return undefined;
  const variety = req.diversity !== undefined || req.maxPer !== undefined ? `${req.diversity ?? 0}/${JSON.stringify(req.maxPer ?? null)}/` : "";
  // The scenario too: an organisation's rules may apply to some scenarios only.
  return `${req.org}/${req.strategy}/${req.scenario ?? "default"}/${req.page}/${req.limit}/${variety}${JSON.stringify(req.fields ?? null)}`;
}
