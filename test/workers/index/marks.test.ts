import { describe, expect, it } from "vitest";
import { Marks } from "../../../workers/index/marks.js";

describe("Marks", () => {
  it("holds nothing at first, holds what was added, and nothing again once cleared", () => {
    const marks = new Marks();
    expect(marks.has(0)).toBe(false);
    marks.add(3);
    marks.add(5_000);
    expect([marks.has(3), marks.has(4), marks.has(5_000), marks.has(1e6)]).toEqual([true, false, true, false]);
    marks.clear();
    expect([marks.has(3), marks.has(5_000)]).toEqual([false, false]);
    marks.add(4);
    expect([marks.has(3), marks.has(4)]).toEqual([false, true]);
  });
});
