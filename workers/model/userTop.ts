/**
 * Each user's best items, kept from training: the item-item model's score blended with a user-user term
 * (training/userUser.ts), which only training computes. A request reads the short list instead of summing up to a
 * thousand rows (docs/recommender.md gives both costs). Made in the
 * training thread from the same rows and recency codes as a query sums them (training/userTop.ts). A request reads
 * it only while the user's history version is the trained one; once it moves on, the query is summed afresh from
 * the item-item rows alone (a user's new events change their answer at once). Past the list (a deep page, a
 * narrow filter), the ranking goes on with the fresh item-item sum of the items it does not hold, each scaled by
 * the user's `tailScales`: blended, such an item scores at least that much and at most the list's last, so the
 * order holds.
 */
export interface UserTop {
  perUser: number;
  /** User u's best items, best first: items[u·perUser .. u·perUser + counts[u]), with their scores. */
  items: Int32Array;
  scores: Float32Array;
  /** How many items user u's list holds (fewer than perUser: every item the user's rows reach); −1: none kept. */
  counts: Int16Array;
  /** Per user: (1 − weight) / the largest item-item sum among their candidates, or 1 with no user-user term. */
  tailScales: Float32Array;
}

/** The buffers of the lists, to move them between threads instead of copying. */
export function userTopBuffers(top: UserTop | undefined): ArrayBufferLike[] {
  return top ? [top.items.buffer, top.scores.buffer, top.counts.buffer, top.tailScales.buffer] : [];
}
