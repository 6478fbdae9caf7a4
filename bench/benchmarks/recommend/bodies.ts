/** Recommend request bodies per strategy: a random known user or item each time, limit 20 (metadata included). */
import { ITEM_STRATEGIES, USER_STRATEGIES, type Strategy } from "../../../src/wire/strategies.js";
import { itemId, userId, type SyntheticSpec } from "../../kit/synthetic.js";

export const LIMIT = 20;

/** A body maker for `strategy`: each call picks a new user or item (uniformly by `random`; every user has events). */
export function bodyMaker(strategy: Strategy, spec: SyntheticSpec, random = Math.random): () => string {
  const head = `{"strategy":"${strategy}","limit":${LIMIT}`;
  if (USER_STRATEGIES.has(strategy)) return () => `${head},"user_id":"${userId((random() * spec.users) | 0)}"}`;
  if (ITEM_STRATEGIES.has(strategy)) return () => `${head},"context_item_id":"${itemId((random() * spec.items) | 0)}"}`;
  return () => `${head}}`;
}
