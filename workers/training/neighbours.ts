import { searchVectors, unitVector } from "../vectors/search.js";
import { TopK } from "../model/topK.js";
import type { ItemItem } from "../model/itemItem.js";
import type { Model } from "../model/model.js";
import { NEIGHBOURS_PER_ITEM, slotOf, TABLE_MAX_ITEMS, END, type NeighbourTable } from "../model/neighbourSlots.js";

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

/**
 * The neighbour lists of a model of vectors, from candidates found by co-occurrence: each item's first
 * NEIGHBOURS_PER_ITEM among its item-item row (the items its users also have, strongest first: itemItem.ts),
 * ranked by the cosine of the vectors (completed by the nearest of all items where the row holds fewer). A
 * model's training builds them so, reading |row| vectors for most items instead of every item's, and the lists
 * are better on both protocols (docs/recommender.md, Quality). A model translated from another process keeps the
 * lists it was stored with.
 */
export function coOccurringNeighbours(model: Model, rows: ItemItem): NeighbourTable | undefined {
  const n = model.itemCount;
  if (n > TABLE_MAX_ITEMS) return undefined;
  const perItem = NEIGHBOURS_PER_ITEM;
  const f = model.params.factors;
  const { itemCodes, cosineScales, rowOf } = model;
  const slots = new Uint32Array(n * perItem).fill(END);
  const offered = new Uint8Array(n);
  for (let item = 0; item < Math.min(n, rows.items); item++) {
    const v = unitVector(model, item);
    if (!v) continue;
    const top = new TopK(perItem);
    let candidates = 0;
    for (let a = rows.rowStart[item]!; a < rows.rowStart[item + 1]!; a++) {
      const j = rows.neighbours[a]!;
      const row = rowOf[j]!;
      const scale = cosineScales[row]!;
      if (scale === 0) continue;
      let dot = 0;
      for (let k = 0, at = row * f; k < f; k++) dot += itemCodes[at + k]! * v[k]!;
      top.offer(dot * scale, j);
      offered[j] = 1;
      candidates++;
    }
    // An item of few co-occurrences has its list completed by the nearest of all items, as before: similar reads
    // a list that ends early as holding every item there is, and would otherwise answer short.
    if (candidates < perItem) {
      const nearest = searchVectors(model, v, perItem, (i) => i !== item && offered[i] === 0, { cosine: true, firstProbes: BUILD_PROBES });
      for (let k = 0; k < nearest.size; k++) top.offer(nearest.score(k), nearest.item(k));
    }
    for (let a = rows.rowStart[item]!; a < rows.rowStart[item + 1]!; a++) offered[rows.neighbours[a]!] = 0;
    const near = top.sorted();
    for (let k = 0; k < near.items.length; k++) slots[item * perItem + k] = slotOf(near.items[k]!, near.scores[k]!);
  }
  return { perItem, slots };
}
