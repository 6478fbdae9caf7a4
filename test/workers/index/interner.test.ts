import { describe, expect, it } from "vitest";
import { Interner } from "../../../workers/index/interner.js";

describe("Interner", () => {
  it("gives text read as UTF-8 bytes the same id as the same text given as a string, across growth", () => {
    const ids = new Interner();
    const names = Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? `user-${i}` : i % 3 === 1 ? `ünï-${i}-用户` : `🎉${i}`));
    // Half are met as strings first, the rest as bytes first; then each is asked for both ways.
    const packed = Buffer.from(names.join(""));
    const spans: Array<[number, number]> = [];
    for (let i = 0, at = 0; i < names.length; i++) {
      const n = Buffer.byteLength(names[i]!);
      spans.push([at, n]);
      at += n;
    }
    const first = names.map((name, i) => (i % 2 === 0 ? ids.intern(name) : ids.internBytes(packed, spans[i]![0], spans[i]![1])));
    expect(new Set(first).size).toBe(names.length);
    for (let i = 0; i < names.length; i++) {
      expect(ids.internBytes(packed, spans[i]![0], spans[i]![1])).toBe(first[i]);
      expect(ids.find(names[i]!)).toBe(first[i]);
      expect(ids.name(first[i]!)).toBe(names[i]);
    }
    expect(ids.size).toBe(names.length);
  });

  it("tells apart texts that differ only in length or in their last byte", () => {
    const ids = new Interner();
    const bytes = Buffer.from("abcabdab");
    const abc = ids.internBytes(bytes, 0, 3);
    const abd = ids.internBytes(bytes, 3, 3);
    const ab = ids.internBytes(bytes, 6, 2);
    expect(new Set([abc, abd, ab]).size).toBe(3);
    expect([ids.find("abc"), ids.find("abd"), ids.find("ab")]).toEqual([abc, abd, ab]);
  });

  it("finds by UTF-8 bytes what was interned as a string or as bytes, and nothing it does not hold, assigning no id", () => {
    const ids = new Interner();
    const names = ["sku-1", "café", "商品-42", "🎉x🎉", "x".repeat(256), "日".repeat(256)];
    const packed = Buffer.from(names.join(""));
    let at = 0;
    const spans = names.map((name) => {
      const n = Buffer.byteLength(name);
      at += n;
      return [at - n, n] as const;
    });
    const asText = names.slice(0, 3).map((name) => ids.intern(name));
    const asBytes = spans.slice(3).map(([from, n]) => ids.internBytes(packed, from, n));
    const known = [...asText, ...asBytes];
    // Twice: the first look at a string-interned name finds it as text and holds its bytes, the second by them.
    for (let round = 0; round < 2; round++) expect(spans.map(([from, n]) => ids.findBytes(packed, from, n))).toEqual(known);
    const unknown = Buffer.from("sku-2cafe商品🎉x");
    for (const [from, n] of [
      [0, 5],
      [5, 4],
      [0, 4],
      [9, 6],
      [15, 5],
    ] as const) {
      expect(ids.findBytes(unknown, from, n)).toBe(-1);
      expect(ids.findBytes(unknown, from, n)).toBe(-1);
    }
    expect(ids.size).toBe(names.length);
    expect(names.map((name) => ids.find(name))).toEqual(known);
  });
});
