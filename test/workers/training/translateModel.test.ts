import { beforeAll, describe, expect, it } from "vitest";
import { closedFormScores } from "../../../workers/model/ease.js";
import { itemItemScores } from "../../../workers/model/itemItem.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { foldIn, type Model } from "../../../workers/model/model.js";
import { decodeModel, encodeModel } from "../../../workers/model/modelBytes.js";
import { END, slotCosine, slotItem } from "../../../workers/model/neighbourSlots.js";
import { EXHAUSTIVE_MAX_ITEMS, trainModel } from "../../../workers/training/train.js";
import { translateModel } from "../../../workers/training/translateModel.js";
import { searchVectors } from "../../../workers/vectors/search.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { topicMatrix, topicModel } from "../../helpers/topicModel.js";

/** This process's number of each of the trainer's items: a seeded shuffle, as another process's interning would give. */
function shuffle(n: number, seed: number): Int32Array {
  const random = seededRandom(seed);
  const local = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [local[i], local[j]] = [local[j]!, local[i]!];
  }
  return local;
}

/** The model as another process has it: stored with its items' names, read back and numbered by `local`. */
function loaded(model: Model, local: Int32Array, users: number): Model {
  const names = Array.from({ length: model.itemCount }, (_, i) => `item-${i}`);
  const bytes = encodeModel({ ...model, names, interactions: 1 });
  return translateModel(decodeModel(bytes), local, users);
}

/** A query of a few of the trainer's items, and the same query in this process's numbers. */
function query(local: Int32Array, items: number[]): { trainer: Int32Array; here: Int32Array; weights: Float64Array } {
  return {
    trainer: Int32Array.from(items),
    here: Int32Array.from(items, (t) => local[t]!),
    weights: Float64Array.from(items, (_, k) => 1 + k / items.length),
  };
}

function scoresOf(model: Model, items: Int32Array, weights: Float64Array): Float64Array {
  const out = new Float64Array(model.closedForm!.items);
  closedFormScores(model.closedForm!, items, weights, out);
  return out;
}

const params = { ...DEFAULT_ALS, factors: 16, iterations: 4, regularization: 5 };

describe("a model loaded from another process", () => {
  it("ranks by the item-item rows and lists neighbours as the trainer does, under this process's item numbers", () => {
    const matrix = topicMatrix({ items: 2_100, topics: 30, users: 1_600, seed: 8 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    expect(model.itemItem).toBeDefined();
    const local = shuffle(2_100, 9);
    const bytes = encodeModel({ ...model, names: Array.from({ length: 2_100 }, (_, i) => `item-${i}`), interactions: 1 });
    const here = translateModel(decodeModel(bytes), local, 1_600);
    const q = query(local, [2, 40, 77, 1_500]);
    const [expected, got] = [new Float64Array(2_100), new Float64Array(2_100)];
    const touched = new Int32Array(2_100);
    itemItemScores(model.itemItem!, q.trainer, q.weights, expected, touched);
    itemItemScores(here.itemItem!, q.here, q.weights, got, touched);
    for (let t = 0; t < 2_100; t++) expect(got[local[t]!]).toBe(expected[t]);
    expect(expected.some((s) => s > 0)).toBe(true);
    const listOf = (m: Model, item: number) => {
      const out: [number, number][] = [];
      for (let k = item * m.neighbours!.perItem; m.neighbours!.slots[k] !== END && out.length < m.neighbours!.perItem; k++)
        out.push([slotItem(m.neighbours!.slots[k]!), slotCosine(m.neighbours!.slots[k]!)]);
      return out;
    };
    for (const t of [2, 40, 1_500]) expect(listOf(here, local[t]!)).toEqual(listOf(model, t).map(([b, c]) => [local[b]!, c]));
  });

  it("scores every item with EASE's primal weights as the trainer does, under this process's item numbers", () => {
    const matrix = topicMatrix({ items: 60, topics: 3, users: 200, seed: 3 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    expect(model.closedForm?.form).toBe("primal");
    const local = shuffle(60, 5);
    const here = loaded(model, local, 200);
    const q = query(local, [0, 3, 6, 9, 31]);
    const expected = scoresOf(model, q.trainer, q.weights);
    const got = scoresOf(here, q.here, q.weights);
    for (let t = 0; t < 60; t++) expect(got[local[t]!]).toBe(expected[t]);
    expect(expected.some((s) => s !== 0)).toBe(true);
  });

  it("scores every item with EASE's dual form as the trainer does, under this process's item numbers", () => {
    const matrix = topicMatrix({ items: 150, topics: 4, users: 60, seed: 4 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    expect(model.closedForm?.form).toBe("dual");
    const local = shuffle(150, 6);
    const here = loaded(model, local, 60);
    const q = query(local, [1, 5, 9, 13, 101]);
    const expected = scoresOf(model, q.trainer, q.weights);
    const got = scoresOf(here, q.here, q.weights);
    for (let t = 0; t < 150; t++) expect(got[local[t]!]).toBeCloseTo(expected[t]!, 9);
    expect(expected.some((s) => s !== 0)).toBe(true);
  });

  it("folds a user in to the same vector from the same items, and leaves every user to be folded in from this process's history", () => {
    const matrix = topicMatrix({ items: 300, topics: 5, users: 2_000, seed: 7 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    const local = shuffle(300, 8);
    const here = loaded(model, local, 2_345);
    const q = query(local, [0, 5, 10, 15]);
    expect(Array.from(foldIn(here, q.here, q.weights)!)).toEqual(Array.from(foldIn(model, q.trainer, q.weights)!));
    expect(here.userCount).toBe(2_345);
    expect(here.userVectors.length).toBe(2_345 * params.factors);
    expect(here.userVersions.every((v) => v === -1)).toBe(true);
  });

  describe("with IVF cells (a catalog past EXHAUSTIVE_MAX_ITEMS)", () => {
    const ITEMS = EXHAUSTIVE_MAX_ITEMS + 1_000;
    let model: Model;
    let local: Int32Array;
    let here: Model;
    beforeAll(() => {
      model = topicModel({ items: ITEMS, topics: 30, users: 3_000, untouched: 100, seed: 11 });
      local = shuffle(ITEMS, 12);
      here = loaded(model, local, 3_000);
    });

    it("finds the trainer's nearest items for a user's vector, renumbered, with the same scores", () => {
      expect(here.ivf).toBeDefined();
      const q = query(local, [0, 30, 60, 90]);
      const v = foldIn(model, q.trainer, q.weights)!;
      const expected = searchVectors(model, v, 20, () => true, { cosine: false }).sorted();
      const got = searchVectors(here, v, 20, () => true, { cosine: false }).sorted();
      expect(Array.from(got.scores)).toEqual(Array.from(expected.scores));
      expect(new Set(got.items)).toEqual(new Set(Array.from(expected.items, (t) => local[t]!)));
    });

    it("lists each item's neighbours as the trainer's lists, renumbered (they are stored with the model)", () => {
      const listOf = (m: Model, item: number) => {
        const out: [number, number][] = [];
        for (let k = 0; k < m.neighbours!.perItem; k++) {
          const slot = m.neighbours!.slots[item * m.neighbours!.perItem + k]!;
          if (slot === END) break;
          out.push([slotItem(slot), slotCosine(slot)]);
        }
        return out;
      };
      for (const t of [0, 1, 2, 500, 20_000]) {
        const expected = listOf(model, t).map(([item, c]) => [local[item]!, c]);
        const got = listOf(here, local[t]!);
        expect(got.map(([, c]) => c)).toEqual(expected.map(([, c]) => c));
        // Items tied with the last one listed may be cut either way (a tie goes to the lower item number).
        const last = expected[expected.length - 1]![1];
        const above = (list: number[][]) => new Set(list.filter(([, c]) => c! > last!).map(([item]) => item));
        expect(above(got)).toEqual(above(expected));
        expect(expected.length).toBeGreaterThan(5);
        expect(above(got).size).toBeGreaterThan(expected.length / 2);
      }
    });
  });

  it("leaves out the items this process has not seen, and numbers its model up to the highest item it maps", () => {
    const matrix = topicMatrix({ items: 60, topics: 3, users: 200, seed: 3 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    // Items 0–9 are unknown here; the others are this process's 5 .. 54 (0–4 are items the trainer never had).
    const local = Int32Array.from({ length: 60 }, (_, t) => (t < 10 ? -1 : t - 5));
    const here = loaded(model, local, 200);
    expect(here.itemCount).toBe(55);
    const q = query(local, [12, 15, 18]);
    const expected = scoresOf(model, q.trainer, q.weights);
    const got = scoresOf(here, q.here, q.weights);
    for (let t = 10; t < 60; t++) expect(got[local[t]!]).toBeCloseTo(expected[t]!, 12);
    for (let a = 0; a < 5; a++) expect(got[a]).toBe(0);
    const v = foldIn(here, q.here, q.weights)!;
    const near = searchVectors(here, v, 55, () => true, { cosine: false }).sorted();
    for (let a = 0; a < 5; a++) expect(here.cosineScales[here.rowOf[a]!]).toBe(0);
    expect(near.items.length).toBeGreaterThan(0);
  });
});
