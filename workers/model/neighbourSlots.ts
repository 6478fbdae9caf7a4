/**
 * Each item's nearest items by cosine of the learned vectors, found once per model in the training thread, so
 * that `similar` and `because-you-viewed` read a list instead of searching the vectors on every request (a
 * third of similar's ranking time at 100,000 items). The vectors only change with the model, and so do the lists.
 */
export interface NeighbourTable {
  /** Slots per item: item i's neighbours fill slots[i·perItem ..], best first, ended early by END. */
  perItem: number;
  /** A neighbour and its cosine in one number (see slotOf): 4 bytes a neighbour, 40 MB for 100,000 items. */
  slots: Uint32Array;
}

/** As many as `similar` takes from the vector search for a first page of up to 25 items. */
export const NEIGHBOURS_PER_ITEM = 100;
/** The low bits of a slot hold the cosine, in steps of 1/8191.5; the high 18 its item. */
const COSINE_BITS = 14;
const COSINE_STEPS = (1 << COSINE_BITS) - 1;
/** Larger catalogs (the item would not fit in a slot's 18 bits) search the vectors on each request instead. */
export const TABLE_MAX_ITEMS = 200_000;
/** Marks the end of a list shorter than perItem (an item id no table holds). */
export const END = 0xffff_ffff;

export function slotOf(item: number, cosine: number): number {
  return item * (COSINE_STEPS + 1) + Math.round(((Math.max(-1, Math.min(1, cosine)) + 1) / 2) * COSINE_STEPS);
}

export function slotItem(slot: number): number {
  return slot >>> COSINE_BITS;
}

export function slotCosine(slot: number): number {
  return ((slot & COSINE_STEPS) / COSINE_STEPS) * 2 - 1;
}
