import { describe, expect, it } from "vitest";
import { AttributeIndex, type Neighbours } from "../../../workers/index/attributeIndex.js";

const itemsOf = (n: Neighbours) => Array.from(n.items.subarray(0, n.size));

describe("AttributeIndex", () => {
  it("finds the items sharing an item's rarest tokens, case-folded, scored by Jaccard", () => {
    const index = new AttributeIndex();
    index.set(0, { brand: "Acme", colour: "red", price: 10 });
    index.set(1, { brand: "acme", colour: "red" });
    index.set(2, { brand: "acme", colour: "blue" });
    index.set(3, { brand: "globex", colour: "red" });
    const found = index.neighbours(0, 100);
    expect(Object.fromEntries(itemsOf(found).map((item, k) => [item, found.scores[k]]))).toEqual({ 1: 1, 2: 1 / 3, 3: 1 / 3 });
    expect(index.similarity(0, 1)).toBe(1);
  });

  it("forgets an item's old tokens when its attributes change", () => {
    const index = new AttributeIndex();
    index.set(0, { brand: "acme" });
    index.set(1, { brand: "acme" });
    index.set(1, { brand: "globex" });
    expect(itemsOf(index.neighbours(0, 100))).toEqual([]);
    expect(index.similarity(0, 1)).toBe(0);
  });

  it("stops walking a token once more than 5,000 items hold it, and keeps the rarer tokens working", () => {
    const index = new AttributeIndex();
    for (let i = 0; i < 6_000; i++) index.set(i, { in_stock: true, shelf: `s${i % 1_000}` });
    expect(itemsOf(index.neighbours(0, 10_000)).sort((a, b) => a - b)).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]); // shelf s0 only
    expect(index.similarity(0, 1)).toBe(1 / 3); // similarity still counts the common token
  });

  it("scores items with more tokens than fit in an item's own slots, and updates them in and out of those slots", () => {
    const index = new AttributeIndex();
    const tags = Array.from({ length: 12 }, (_, k) => `t${k}`);
    index.set(0, { tags });
    index.set(1, { tags: tags.slice(0, 6) });
    index.set(2, { tags: [...tags.slice(6), "other"] });
    expect(index.similarity(0, 1)).toBe(6 / 12);
    expect(index.similarity(0, 2)).toBe(6 / 13);
    expect(index.similarity(1, 2)).toBe(0);
    index.set(0, { tags: ["t0"] });
    expect(index.similarity(0, 1)).toBe(1 / 6);
    index.set(1, { tags });
    expect(index.similarity(1, 2)).toBe(6 / 13);
    expect(index.tokens(1)).toHaveLength(12);
  });

  it("walks the rarest token's items first, so a small visit budget is spent on the most telling matches", () => {
    const index = new AttributeIndex();
    index.set(0, { colour: "red", shelf: "s1" });
    for (let i = 1; i <= 50; i++) index.set(i, { colour: "red" });
    index.set(51, { shelf: "s1" });
    expect(itemsOf(index.neighbours(0, 2))).toEqual([51]); // the item itself is the first posting visited
    expect(itemsOf(index.neighbours(0, 300))).toHaveLength(51);
  });

  it("counts a value repeated in an item's attributes once", () => {
    const index = new AttributeIndex();
    index.set(0, { tags: ["a", "A", "a"], brand: "acme" });
    index.set(1, { tags: ["a"], brand: "acme" });
    expect(index.tokens(0)).toHaveLength(2);
    expect(index.similarity(0, 1)).toBe(1);
  });

  it("scores a batch of candidates as similarity scores each, items without tokens and past the end included", () => {
    const index = new AttributeIndex();
    index.set(0, { brand: "acme", colour: "red", tags: ["a", "b", "c", "d", "e", "f", "g"] });
    index.set(1, { brand: "acme", colour: "red" });
    index.set(2, { tags: ["a", "b", "c", "d", "e", "f", "g", "h", "i"] });
    index.set(3, {});
    const items = Int32Array.from([1, 2, 3, 50_000, 0]);
    const out = new Float64Array(items.length);
    index.similarities(0, items, items.length, out);
    expect(Array.from(out)).toEqual(Array.from(items, (i) => index.similarity(0, i)));
    expect(out[0]).toBeCloseTo(2 / 9);
    expect(out[4]).toBe(1);
  });
});
