import { describe, expect, it } from "vitest";
import { codeDot } from "../../../workers/training/linalg.js";
import type { Model } from "../../../workers/training/model.js";
import { SimdScorer } from "../../../workers/strategies/simdScores.js";

function randomModel(rows: number, f: number, seed: number): Model {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const itemCodes = Int8Array.from({ length: rows * f }, () => Math.floor(next() * 255) - 127);
  return { params: { factors: f }, itemCodes } as unknown as Model;
}

describe("SimdScorer (WebAssembly SIMD scan of item codes)", () => {
  for (const f of [8, 64, 128]) {
    it(`gives every row's dot product with the query, as the JavaScript scan does (${f} factors)`, () => {
      const model = randomModel(500, f, f);
      const original = Int8Array.from(model.itemCodes);
      const scorer = SimdScorer.adopt(model)!;
      expect(scorer).toBeDefined();
      expect(model.itemCodes).toEqual(original); // the model now reads the same codes from wasm memory
      const q = Float64Array.from({ length: f }, (_, k) => Math.sin(k + 1));
      scorer.setQuery(q);
      scorer.scan(100, 420);
      for (let row = 100; row < 420; row++) {
        const expected = codeDot(original, row * f, q, f);
        expect(Math.abs(scorer.out[row - 100]! - expected)).toBeLessThan(1e-3 * (1 + Math.abs(expected)));
      }
    });
  }

  it("declines a factor count that is not a multiple of 8 (the JavaScript scan serves it)", () => {
    const model = randomModel(10, 12, 1);
    const codes = model.itemCodes;
    expect(SimdScorer.adopt(model)).toBeUndefined();
    expect(model.itemCodes).toBe(codes);
  });
});
