import { searchVectors, unitVector } from "../vectors/search.js";
import type { Model } from "./model.js";
import { NEIGHBOURS_PER_ITEM, slotOf, TABLE_MAX_ITEMS, END, type NeighbourTable } from "./neighbourSlots.js";

/**
 * Builds each item's nearest items by cosine of the learned vectors (the table's layout: neighbourSlots.ts).
 * Runs once per model in the training thread.
 */
/** More cells than a request probes (2): the lists are built once, so they can afford to miss fewer neighbours. */
const BUILD_PROBES = 6;

/** The neighbour lists of every item with a learned vector; undefined above TABLE_MAX_ITEMS. */
export function neighbourTable(model: Model): NeighbourTable | undefined {
  const n = model.itemCount;
  if (n > TABLE_MAX_ITEMS) return undefined;
  const perItem = NEIGHBOURS_PER_ITEM;
  const slots = new Uint32Array(n * perItem).fill(END);
  for (let item = 0; item < n; item++) {
    const v = unitVector(model, item);
    if (!v) continue;
    const near = searchVectors(model, v, perItem, (i) => i !== item, { cosine: true, firstProbes: BUILD_PROBES }).sorted();
    const base = item * perItem;
    for (let k = 0; k < near.items.length; k++) slots[base + k] = slotOf(near.items[k]!, near.scores[k]!);
  }
  return { perItem, slots };
}
