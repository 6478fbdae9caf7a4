/**
 * How a user's record becomes the query of `personalized`: each item's weight by its recency, and how many items
 * a query reads. Shared by the queries of requests (trainingSet.ts) and the lists kept at training (userTop.ts),
 * which must weigh alike to rank alike.
 */

/** How much more a user's latest items say than their older ones, and over how many items that fades by half. */
export const RECENT_BOOST = 1;
export const RECENT_HALF_LIFE = 5;
/** The recency code of an item the user has only before their kept history (weight 1). */
export const NOT_RECENT = 0xffff;

/**
 * A query weight from a recency code r, the number of distinct items the user touched since (0: the latest):
 * 1 + RECENT_BOOST·2^(−r/RECENT_HALF_LIFE), recency relative to the user's own activity, not to the clock, so a
 * user who comes back after a year is read by what they did last. Codes are capped below NOT_RECENT, where the
 * weight is 1 to the last bit anyway.
 */
export function recencyWeight(code: number): number {
  return code === NOT_RECENT ? 1 : 1 + RECENT_BOOST * 2 ** (-code / RECENT_HALF_LIFE);
}
