import { describe, expect, it } from "vitest";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { decodeModel, encodeModel, readHeader, storedNames } from "../../../workers/model/modelBytes.js";
import { trainModel } from "../../../workers/training/train.js";
import { topicMatrix } from "../../helpers/topicModel.js";

const params = { ...DEFAULT_ALS, factors: 16, iterations: 2 };

describe("a model's stored bytes", () => {
  it("give back every array the loading process needs, and each item's id in the trainer's numbering", () => {
    const matrix = topicMatrix({ items: 150, topics: 4, users: 60, seed: 4 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    const names = Array.from({ length: 150 }, (_, i) => (i === 7 ? "ünïcödé-✓" : `item-${i}`));
    const bytes = encodeModel({ ...model, names, interactions: 720 });
    const back = decodeModel(bytes);
    expect(back.itemCodes).toEqual(model.itemCodes);
    expect(back.itemScales).toEqual(model.itemScales);
    expect(back.cosineScales).toEqual(model.cosineScales);
    expect(back.itemOfRow).toEqual(model.itemOfRow);
    expect(back.itemGram).toEqual(model.itemGram);
    expect(back.closedForm).toEqual(model.closedForm);
    expect(back.params).toEqual(params);
    expect(back.interactions).toBe(720);
    const read = storedNames(bytes);
    expect(Array.from({ length: read.count }, (_, t) => read.name(t))).toEqual(names);
  });

  it("give back a large catalog's item-item rows (with their queries' length) and neighbour lists, which a model without vectors cannot rebuild", () => {
    const matrix = topicMatrix({ items: 2_100, topics: 30, users: 1_600, seed: 5 });
    // Trained on rows a training budget cut to 40 items: queries elsewhere must read as few.
    const model = trainModel(matrix, new Int32Array(matrix.rows), params, undefined, undefined, 40);
    expect(model.itemItem!.queryMax).toBe(40);
    expect(model.itemCodes.length).toBe(0);
    const back = decodeModel(encodeModel({ ...model, names: Array.from({ length: 2_100 }, (_, i) => `i${i}`), interactions: 1 }));
    expect(back.itemItem).toEqual(model.itemItem);
    expect(back.neighbours).toEqual(model.neighbours);
    expect(back.closedForm).toBeUndefined();
  });

  it("refuse bytes of another format or cut short, rather than read them as a model", () => {
    const matrix = topicMatrix({ items: 60, topics: 3, users: 200, seed: 3 });
    const model = trainModel(matrix, new Int32Array(matrix.rows), params);
    const bytes = encodeModel({ ...model, names: Array.from({ length: 60 }, (_, i) => `i${i}`), interactions: 1 });
    expect(() => decodeModel(bytes.subarray(0, bytes.length - 100))).toThrow(/overruns/);
    const header = readHeader(bytes);
    expect(header.format).toBe(2);
    const other = bytes.slice();
    // The format number is the header's first value after the map's marker and the key "format".
    const at = other.indexOf(2, 4 + 8);
    other[at] = 3;
    expect(() => readHeader(other)).toThrow(/format 3/);
  });
});
