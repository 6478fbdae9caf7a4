import { describe, expect, it } from "vitest";
import { codeDot } from "../../../workers/training/linalg.js";
import type { Model } from "../../../workers/training/model.js";
import { SimdScorer } from "../../../workers/vectors/simdScores.js";

function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

function randomModel(rows: number, f: number, seed: number): Model {
  const next = seeded(seed);
  const itemCodes = Int8Array.from({ length: rows * f }, () => Math.floor(next() * 255) - 127);
  const itemScales = Float32Array.from({ length: rows }, () => 0.001 + next() / 100);
  const cosineScales = Float32Array.from({ length: rows }, () => next());
  return { params: { factors: f }, itemCodes, itemScales, cosineScales } as unknown as Model;
}

/** The most the int16 query can move a row's score: half a query step on every product. */
function quantizationBound(model: Model, codes: Int8Array, scale: number, q: Float64Array, row: number): number {
  const f = model.params.factors;
  let codeSum = 0;
  for (let k = 0; k < f; k++) codeSum += Math.abs(codes[row * f + k]!);
  const step = Math.max(...Array.from(q, Math.abs)) / 32_767;
  return 0.5 * step * codeSum * scale * 1.001 + 1e-12;
}

/** Rows from..to with their exact scores (float query, JavaScript), under one of the model's scale sets. */
function exactScores(model: Model, codes: Int8Array, scales: Float32Array, q: Float64Array, from: number, to: number): number[] {
  const f = model.params.factors;
  return Array.from({ length: to - from }, (_, i) => codeDot(codes, (from + i) * f, q, f) * scales[from + i]!);
}

describe("SimdScorer (WebAssembly SIMD scan of item codes)", () => {
  for (const f of [16, 64, 128, 256]) {
    it(`scores every row as the JavaScript scan does, under either scale set (${f} factors)`, () => {
      const model = randomModel(500, f, f);
      const codes = Int8Array.from(model.itemCodes);
      const [itemScales, cosineScales] = [Float32Array.from(model.itemScales), Float32Array.from(model.cosineScales)];
      const scorer = SimdScorer.adopt(model)!;
      expect(scorer).toBeDefined();
      // The model now reads the same codes and scales from wasm memory.
      expect(model.itemCodes).toEqual(codes);
      expect(model.itemScales).toEqual(itemScales);
      expect(model.cosineScales).toEqual(cosineScales);
      const q = Float64Array.from({ length: f }, (_, k) => Math.sin(k + 1));
      scorer.setQuery(q);
      for (const [set, scales] of [
        [0, itemScales],
        [1, cosineScales],
      ] as const) {
        const expected = exactScores(model, codes, scales, q, 100, 420);
        expect(scorer.scan(100, 420, set, -Infinity)).toBe(320);
        expected.forEach((score, i) => {
          expect(scorer.rows[i]).toBe(100 + i);
          expect(Math.abs(scorer.scores[i]! - score)).toBeLessThanOrEqual(quantizationBound(model, codes, scales[100 + i]!, q, 100 + i));
        });
      }
    });
  }

  it("hands back only the rows that reach the threshold, in row order", () => {
    const model = randomModel(1000, 64, 7);
    const codes = Int8Array.from(model.itemCodes);
    const scales = Float32Array.from(model.cosineScales);
    const scorer = SimdScorer.adopt(model)!;
    const q = Float64Array.from({ length: 64 }, (_, k) => Math.cos(3 * k));
    scorer.setQuery(q);
    const exact = exactScores(model, codes, scales, q, 0, 1000);
    const threshold = [...exact].sort((a, b) => b - a)[49]!;
    const n = scorer.scan(0, 1000, 1, threshold);
    const rows = Array.from(scorer.rows.subarray(0, n));
    // Within the quantization's error of the threshold a row may fall either side; beyond it, never.
    const margin = (row: number) => quantizationBound(model, codes, scales[row]!, q, row);
    expect(rows).toEqual(rows.slice().sort((a, b) => a - b));
    for (const row of rows) expect(exact[row]!).toBeGreaterThanOrEqual(threshold - margin(row));
    exact.forEach((score, row) => {
      if (score >= threshold + margin(row)) expect(rows).toContain(row);
    });
    expect(n).toBeGreaterThanOrEqual(45);
    expect(n).toBeLessThanOrEqual(55);
  });

  it("scores a zero query as zero for every row", () => {
    const model = randomModel(20, 16, 3);
    const scorer = SimdScorer.adopt(model)!;
    scorer.setQuery(new Float64Array(16));
    expect(scorer.scan(0, 20, 0, -Infinity)).toBe(20);
    expect(Array.from(scorer.scores.subarray(0, 20))).toEqual(new Array(20).fill(0));
  });

  it("scores with another scorer's query as if it had been given the query itself", () => {
    const q = Float64Array.from({ length: 64 }, (_, k) => Math.sin(2 * k) - 0.3);
    const own = SimdScorer.adopt(randomModel(300, 64, 11))!;
    const borrowing = SimdScorer.adopt(randomModel(300, 64, 11))!;
    const lender = SimdScorer.adopt(randomModel(10, 64, 12))!;
    own.setQuery(q);
    lender.setQuery(q);
    borrowing.setQueryOf(lender);
    expect(borrowing.scan(0, 300, 1, -Infinity)).toBe(own.scan(0, 300, 1, -Infinity));
    expect(borrowing.scores.subarray(0, 300)).toEqual(own.scores.subarray(0, 300));
  });

  it("declines a factor count that is not a multiple of 16 (the JavaScript scan serves it)", () => {
    const model = randomModel(10, 24, 1);
    const codes = model.itemCodes;
    expect(SimdScorer.adopt(model)).toBeUndefined();
    expect(model.itemCodes).toBe(codes);
  });
});
