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
});
