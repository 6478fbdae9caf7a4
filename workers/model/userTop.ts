/**
 * Each user's best items by the item-item model, kept from training: what `personalized` would rank for them
 * while their history is unchanged, so that a request reads a short list instead of summing up to a thousand
 * rows (about 150 µs for a user of 70 items on a 100,000-item catalog, against a few µs). Made in the training
 * thread from the same rows, the same recency codes and in the same order as a query sums them, so a kept list
 * holds exactly the items a fresh query ranks first. A request reads it only while the user's history version is
 * the trained one; once it moves on, the query is summed afresh (a user's new events change their answer at once).
 */
export interface UserTop {
  perUser: number;
  /** User u's best items, best first: items[u·perUser .. u·perUser + counts[u]), with their scores. */
  items: Int32Array;
  scores: Float32Array;
  /** How many items user u's list holds (fewer than perUser: every item the user's rows reach); −1: none kept. */
  counts: Int16Array;
}

/** The buffers of the lists, to move them between threads instead of copying. */
export function userTopBuffers(top: UserTop | undefined): ArrayBufferLike[] {
  return top ? [top.items.buffer, top.scores.buffer, top.counts.buffer] : [];
}
