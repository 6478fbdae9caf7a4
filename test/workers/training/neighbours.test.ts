import { beforeAll, describe, expect, it } from "vitest";
import { unitVector } from "../../../workers/vectors/search.js";
import type { Model } from "../../../workers/model/model.js";
import { END, NEIGHBOURS_PER_ITEM, slotCosine, slotItem, slotOf, TABLE_MAX_ITEMS } from "../../../workers/model/neighbourSlots.js";
import { EXHAUSTIVE_MAX_ITEMS } from "../../../workers/training/train.js";
import { binaryPattern } from "../../../workers/training/ease.js";
import { fitItemItem } from "../../../workers/training/itemItem.js";
import { coOccurringNeighbours, neighbourTable } from "../../../workers/training/neighbours.js";
import { topicMatrix, topicModel, type Topics } from "../../helpers/topicModel.js";

const ITEMS = EXHAUSTIVE_MAX_ITEMS + 1_000;
const TOPICS = 30;
const USERS = 3_000;
const UNTOUCHED = 100;

/** Item `item`'s list as items and cosines, best first. */
function listOf(model: Model, item: number): { items: number[]; cosines: number[] } {
  const { perItem, slots } = model.neighbours!;
  const items: number[] = [];
  const cosines: number[] = [];
  for (let k = 0; k < perItem && slots[item * perItem + k] !== END; k++) {
    items.push(slotItem(slots[item * perItem + k]!));
    cosines.push(slotCosine(slots[item * perItem + k]!));
  }
  return { items, cosines };
}

/** The exact cosine of two items' (quantized) vectors. */
function cosine(model: Model, a: number, b: number): number {
  const va = unitVector(model, a)!;
  const vb = unitVector(model, b)!;
  return va.reduce((sum, x, k) => sum + x * vb[k]!, 0);
}

const TOPIC_DATA: Topics = { items: ITEMS, topics: TOPICS, users: USERS, untouched: UNTOUCHED, seed: 11 };
let model: Model;
/** The lists training builds (co-occurring items by cosine), beside the model's vectors. */
let trained: NonNullable<Model["neighbours"]>;
beforeAll(() => {
  model = topicModel(TOPIC_DATA);
  trained = model.neighbours!;
  // The tests of neighbourTable (a stored model of vectors without lists) read its lists from model.neighbours.
  model.neighbours = neighbourTable(model);
});

describe("the neighbour lists of a model without stored lists, from every item's vector", () => {
  it("list an item's nearest items by cosine, best first, without the item itself", () => {
    expect(model.ivf).toBeDefined();
    let found = 0;
    let asked = 0;
    for (let item = 0; item < ITEMS - UNTOUCHED; item += 173) {
      if (!unitVector(model, item)) continue;
      asked++;
      const { items, cosines } = listOf(model, item);
      expect(items).toHaveLength(NEIGHBOURS_PER_ITEM);
      expect(items).not.toContain(item);
      for (let k = 1; k < cosines.length; k++) expect(cosines[k]!).toBeLessThanOrEqual(cosines[k - 1]!);
      for (let k = 0; k < items.length; k++) expect(Math.abs(cosines[k]! - cosine(model, item, items[k]!))).toBeLessThan(2e-4);
      const exact = Array.from({ length: ITEMS - UNTOUCHED }, (_, i) => i)
        .filter((i) => i !== item && unitVector(model, i) !== undefined)
        .map((i) => ({ i, c: cosine(model, item, i) }))
        .sort((x, y) => y.c - x.c)
        .slice(0, NEIGHBOURS_PER_ITEM)
        .map((x) => x.i);
      const listed = new Set(items);
      found += exact.filter((i) => listed.has(i)).length / exact.length;
    }
    // The lists come from the cells nearest each item, not from every item: nearly all, not always all.
    expect(asked).toBeGreaterThan(30);
    expect(found / asked).toBeGreaterThan(0.97);
  });

  it("hold nothing for an item without a learned vector", () => {
    for (let item = ITEMS - UNTOUCHED; item < ITEMS; item += 7) expect(listOf(model, item).items).toEqual([]);
  });
});

describe("the neighbour lists training builds: co-occurring items by cosine", () => {
  const rows = () => fitItemItem(binaryPattern(topicMatrix(TOPIC_DATA))).rows;

  it("are the training's lists", () => {
    expect(Array.from(coOccurringNeighbours(model, rows())!.slots)).toEqual(Array.from(trained.slots));
  });

  it("list an item's co-occurring items by cosine, best first, completed by the nearest of all items where they are fewer than a list", () => {
    const r = rows();
    let asked = 0;
    for (let item = 0; item < ITEMS - UNTOUCHED; item += 173) {
      if (!unitVector(model, item)) continue;
      asked++;
      const { perItem, slots } = trained;
      const items: number[] = [];
      const cosines: number[] = [];
      for (let k = 0; k < perItem && slots[item * perItem + k] !== END; k++) {
        items.push(slotItem(slots[item * perItem + k]!));
        cosines.push(slotCosine(slots[item * perItem + k]!));
      }
      expect(items).not.toContain(item);
      expect(new Set(items).size).toBe(items.length);
      for (let k = 1; k < cosines.length; k++) expect(cosines[k]!).toBeLessThanOrEqual(cosines[k - 1]!);
      for (let k = 0; k < items.length; k++) expect(Math.abs(cosines[k]! - cosine(model, item, items[k]!))).toBeLessThan(2e-4);
      const row = Array.from(r.neighbours.subarray(r.rowStart[item]!, r.rowStart[item + 1]!)).filter((j) => unitVector(model, j));
      const byCosine = row.map((i) => ({ i, c: cosine(model, item, i) })).sort((x, y) => y.c - x.c || x.i - y.i);
      if (row.length >= perItem) {
        // Only the row's items, its nearest by cosine (but for near ties within the codes' quantization).
        expect(items.every((i) => row.includes(i))).toBe(true);
        byCosine.slice(0, perItem).forEach(({ c }, k) => expect(Math.abs(cosines[k]! - c)).toBeLessThan(2e-4));
      } else {
        // A full list, and no co-occurring item left out for a farther one.
        expect(items).toHaveLength(perItem);
        const last = cosines[cosines.length - 1]!;
        for (const { i, c } of byCosine) if (c > last + 2e-4) expect(items).toContain(i);
      }
    }
    expect(asked).toBeGreaterThan(30);
  });

  it("hold nothing for an item without a learned vector", () => {
    for (let item = ITEMS - UNTOUCHED; item < ITEMS; item += 7) {
      for (let k = 0; k < trained.perItem; k++) expect(trained.slots[item * trained.perItem + k]).toBe(END);
    }
  });
});

describe("a neighbour slot", () => {
  it("holds an item id up to the table's largest catalog and its cosine to within 1/8,000", () => {
    for (const item of [0, 1, 4_097, TABLE_MAX_ITEMS - 1]) {
      for (const c of [-1, -0.5, 0, 0.123_456, 0.999_9, 1]) {
        const slot = slotOf(item, c);
        expect(slot).not.toBe(END);
        expect(slotItem(slot)).toBe(item);
        expect(Math.abs(slotCosine(slot) - c)).toBeLessThanOrEqual(1 / 8_000);
      }
    }
  });

  it("clamps a cosine a rounding error put past ±1", () => {
    expect(slotCosine(slotOf(5, 1.000_001))).toBe(1);
    expect(slotCosine(slotOf(5, -1.000_001))).toBe(-1);
    expect(slotItem(slotOf(5, 1.000_001))).toBe(5);
  });
});
