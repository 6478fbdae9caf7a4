import { isIdentifier, isIdentifierList } from "../ingest/plainRecord.js";
import { USER_HASH_MAX } from "../ingest/schemas.js";
import { CANDIDATES_MAX, DEFAULT_SCENARIO, DEPTH_MAX, LIMIT_MAX, SCENARIO_PATTERN, VARIETY_DEPTH_MAX, type RecommendBody } from "./schema.js";
import { ITEM_STRATEGIES, STRATEGIES, USER_STRATEGIES, type Strategy } from "../wire/strategies.js";

const STRATEGY_NAMES: ReadonlySet<unknown> = new Set(STRATEGIES);
const DEFAULT_LIMIT = 20;

/**
 * The recommend body as RecommendSchema would give it (absent fields as undefined), when the body is certainly
 * valid and uses only the common fields (candidates, but no filters, exclusions or fields list); otherwise undefined, and the
 * schema decides. zod's parse was a fifth of the front thread's allocations per recommend request. Like
 * isPlainValidItem it never says "invalid": every error message still comes from the schema.
 */
export function plainRecommend(body: object): RecommendBody | undefined {
  if (Object.getPrototypeOf(body) !== Object.prototype) return undefined;
  let strategy: Strategy = "personalized";
  let scenario = DEFAULT_SCENARIO;
  let limit = DEFAULT_LIMIT;
  let page = 1;
  let userId: string | undefined;
  let userHash: string | undefined;
  let contextItemId: string | undefined;
  let itemType: string | undefined;
  let excludeSeen: boolean | undefined;
  let diversity: number | undefined;
  let candidates: string[] | undefined;
  for (const key in body) {
    if (!Object.hasOwn(body, key)) return undefined;
    const v = (body as Record<string, unknown>)[key];
    switch (key) {
      case "strategy":
        if (!STRATEGY_NAMES.has(v)) return undefined;
        strategy = v as Strategy;
        break;
      case "scenario":
        if (typeof v !== "string" || !SCENARIO_PATTERN.test(v)) return undefined;
        scenario = v;
        break;
      case "user_id":
        if (!isIdentifier(v)) return undefined;
        userId = v as string;
        break;
      case "user_hash":
        if (typeof v !== "string" || v.length > USER_HASH_MAX) return undefined;
        userHash = v;
        break;
      case "context_item_id":
        if (!isIdentifier(v)) return undefined;
        contextItemId = v as string;
        break;
      case "item_type":
        if (!isIdentifier(v)) return undefined;
        itemType = v as string;
        break;
      case "exclude_seen":
        if (typeof v !== "boolean") return undefined;
        excludeSeen = v;
        break;
      case "diversity":
        if (typeof v !== "number" || !(v >= 0 && v <= 1)) return undefined;
        diversity = v;
        break;
      case "candidates":
        if (!isIdentifierList(v, CANDIDATES_MAX)) return undefined;
        candidates = v as string[];
        break;
      case "limit":
        if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > LIMIT_MAX) return undefined;
        limit = v as number;
        break;
      case "page":
        if (!Number.isSafeInteger(v) || (v as number) < 1) return undefined;
        page = v as number;
        break;
      default:
        return undefined;
    }
  }
  if (USER_STRATEGIES.has(strategy) && userId === undefined) return undefined;
  if (ITEM_STRATEGIES.has(strategy) && contextItemId === undefined) return undefined;
  if (page * limit > DEPTH_MAX || (diversity && page * limit > VARIETY_DEPTH_MAX)) return undefined;
  // One literal, so every body gets one object shape (absent fields undefined); spreading a partial object cost µs.
  return {
    strategy,
    scenario,
    user_id: userId,
    user_hash: userHash,
    context_item_id: contextItemId,
    item_type: itemType,
    exclude_seen: excludeSeen,
    diversity,
    candidates,
    limit,
    page,
  };
}
