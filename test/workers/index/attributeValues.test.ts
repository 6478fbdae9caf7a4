import { describe, expect, it } from "vitest";
import type { FilterValue } from "../../../src/wire/rank.js";
import { AttributeValues, nameKey, valueKey } from "../../../workers/index/attributeValues.js";

/** The readable twin of a filter (CONTRACT 5), on the attributes as objects: what AttributeValues must agree with. */
function matchesObject(attrs: Record<string, unknown>, name: string, want: FilterValue): boolean {
  const one = (v: unknown): boolean => {
    if (Array.isArray(want)) return want.some((w) => w === v);
    if (typeof want === "object") return typeof v === "number" && v >= (want.min ?? -Infinity) && v <= (want.max ?? Infinity);
    return v === want;
  };
  const value = attrs[name];
  return Array.isArray(value) ? value.some(one) : one(value);
}

function matchesValues(values: AttributeValues, item: number, name: string, want: FilterValue): boolean {
  const wanted = Array.isArray(want) ? want : typeof want === "object" ? [] : [want];
  for (const w of wanted) {
    if (typeof w === "number" ? values.hasNumber(item, nameKey(name), w, w) : values.hasKey(item, valueKey(name, w))) return true;
  }
  if (!Array.isArray(want) && typeof want === "object") return values.hasNumber(item, nameKey(name), want.min ?? -Infinity, want.max ?? Infinity);
  return false;
}

function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ["brand", "tags", "price", "in_stock", "sizes"];
const SCALARS: unknown[] = ["a", "b", "A", "true", "1", "", 1, 2, 2.5, -0, 0, true, false, null, { a: 1 }, ["nested"]];

describe("AttributeValues", () => {
  it("matches equality, any-of and range filters exactly as the attributes as objects do, arrays included", () => {
    const next = random(3);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const values = new AttributeValues();
    const objects: Record<string, unknown>[] = [];
    for (let item = 0; item < 400; item++) {
      const attrs: Record<string, unknown> = {};
      for (const name of NAMES) {
        if (next() < 0.3) continue;
        attrs[name] = next() < 0.4 ? Array.from({ length: Math.floor(next() * 6) }, () => pick(SCALARS)) : pick(SCALARS);
      }
      objects[item] = attrs;
      values.set(item, attrs);
    }
    // Replacing a third of them leaves stale runs behind, then compaction moves the rest.
    for (let item = 0; item < 400; item += 3) {
      objects[item] = { brand: pick(["a", "b"]), price: Math.floor(next() * 5), tags: ["x", pick(SCALARS)] };
      values.set(item, objects[item]!);
    }
    const wants: FilterValue[] = [
      "a",
      "A",
      "true",
      "1",
      "",
      1,
      0,
      2.5,
      true,
      false,
      ["a", 1],
      ["b", true, 2],
      { min: 1 },
      { max: 0 },
      { min: 0.5, max: 2.5 },
    ];
    let matched = 0;
    for (let item = 0; item < 400; item++) {
      for (const name of NAMES) {
        for (const want of wants) {
          const expected = matchesObject(objects[item]!, name, want);
          expect(matchesValues(values, item, name, want), `${JSON.stringify(objects[item])} ${name} ${JSON.stringify(want)}`).toBe(expected);
          if (expected) matched++;
        }
      }
    }
    expect(matched).toBeGreaterThan(1_000);
  });

  it("keeps an item's values in 8 bytes each (16 for a number), however long the text", () => {
    const values = new AttributeValues();
    values.set(0, { description: "x".repeat(30 * 1024), tags: ["a", "b", "a"], price: 3 });
    expect(values.bytes(0)).toBe(3 * 8 + 16);
    expect(values.hasKey(0, valueKey("description", "x".repeat(30 * 1024)))).toBe(true);
    values.drop(0);
    expect(values.bytes(0)).toBe(0);
    expect(values.hasKey(0, valueKey("tags", "a"))).toBe(false);
  });
});
