import { beforeAll, describe, expect, it } from "vitest";
import { searchVectors, unitVector } from "../../../workers/vectors/search.js";
import type { Model } from "../../../workers/model/model.js";
import { EXHAUSTIVE_MAX_ITEMS } from "../../../workers/training/train.js";
import { topicModel } from "../../helpers/topicModel.js";

const ITEMS = EXHAUSTIVE_MAX_ITEMS + 1_000;
const TOPICS = 30;
// About six users an item, as the test was tuned with: more make a topic's items all but identical vectors.
const USERS = Math.round(ITEMS / 2);

let model: Model;
beforeAll(() => {
  model = topicModel({ items: ITEMS, topics: TOPICS, users: USERS, untouched: 100, seed: 7 });
});

describe("vector search over a catalog large enough for IVF cells", () => {
  it("stores each item's vector in exactly one row", () => {
    expect(model.ivf).toBeDefined();
    const rows = new Set(Array.from(model.rowOf));
    expect(rows.size).toBe(ITEMS);
    for (let item = 0; item < ITEMS; item += 97) expect(model.itemOfRow[model.rowOf[item]!]).toBe(item);
  });

  it("finds an item itself first when searching with its own unit vector", () => {
    for (let item = 0; item < ITEMS - 100; item += 211) {
      const own = unitVector(model, item);
      if (!own) continue; // one item in a few hundred drew no user
      const top = searchVectors(model, own, 5, () => true, { cosine: true }).sorted();
      expect(top.items[0]).toBe(item);
      expect(top.scores[0]).toBeCloseTo(1, 4);
    }
  });

  it("ranks items of the query item's own topic as its nearest neighbours", () => {
    const item = 3 * TOPICS + 4;
    const top = searchVectors(model, unitVector(model, item)!, 20, (i) => i !== item, { cosine: true }).sorted();
    const sameTopic = top.items.filter((i) => i % TOPICS === item % TOPICS).length;
    expect(sameTopic).toBeGreaterThanOrEqual(18);
  });

  it("finds an item's neighbours in its own cell when asked to start there, widening without repeating an item", () => {
    const item = 5 * TOPICS + 7;
    const own = searchVectors(model, unitVector(model, item)!, 5, () => true, { cosine: true, near: item }).sorted();
    expect(own.items[0]).toBe(item);
    // Its cell holds its topic; asking for more than that topic has makes the search go on to other cells, and
    // not back to its own.
    const twoTopics = (i: number) => i % TOPICS === item % TOPICS || i % TOPICS === (item + 1) % TOPICS;
    const widened = searchVectors(model, unitVector(model, item)!, 250, twoTopics, { cosine: true, near: item, firstProbes: 1 }).sorted().items;
    expect(widened).toHaveLength(250);
    expect(new Set(widened).size).toBe(250);
    expect(widened.every(twoTopics)).toBe(true);
  });

  it("has no vector for an item nobody engaged with", () => {
    expect(unitVector(model, ITEMS - 1)).toBeUndefined();
  });

  it("finds what an exact scan of every row finds when every cell is probed (the SIMD scan skips only rows below the k-th best)", () => {
    const f = model.params.factors;
    const cells = model.ivf!.cells;
    for (const [query, cosine] of [
      [unitVector(model, 5)!, true],
      [Float64Array.from({ length: f }, (_, k) => Math.sin(k)), false],
    ] as const) {
      const top = searchVectors(model, query, 25, () => true, { cosine, firstProbes: cells });
      const scales = cosine ? model.cosineScales : model.itemScales;
      const exact = Array.from({ length: model.itemCodes.length / f }, (_, row) => {
        let dot = 0;
        for (let k = 0; k < f; k++) dot += model.itemCodes[row * f + k]! * query[k]!;
        return { item: model.itemOfRow[row]!, score: dot * scales[row]! };
      }).sort((a, b) => b.score - a.score);
      const found = top.sorted();
      // The int16 query moves a score by far less than this; only near-ties may trade places.
      const slack = 1e-3 * Math.abs(exact[0]!.score);
      expect(found.items.length).toBe(25);
      found.items.forEach((item, k) => {
        expect(Math.abs(found.scores[k]! - exact[k]!.score)).toBeLessThan(slack);
        expect(exact.findIndex((e) => e.item === item)).toBeLessThan(25 + 5);
      });
    }
  });

  it("widens the probe until enough items pass a strict filter", () => {
    const wanted = (i: number) => i % TOPICS === 11;
    const top = searchVectors(model, unitVector(model, 2)!, 30, wanted, { cosine: true, firstProbes: 1 });
    expect(top.size).toBe(30);
    expect(top.sorted().items.every(wanted)).toBe(true);
  });
});
