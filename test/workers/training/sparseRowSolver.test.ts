import { describe, expect, it } from "vitest";
import { choleskySolve, gram } from "../../../workers/model/linalg.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { EXACT_MAX_ENTRIES, SparseRowSolver } from "../../../workers/training/sparseRowSolver.js";

const F = 16;
const N = 40;
const LAMBDA = 0.5;

/** The row's normal equations written out in full: (YᵀY + λI + Σ (c − 1)·y·yᵀ)·x = Σ c·y. */
function directSolve(fixed: Float32Array, columns: Int32Array, c: Float64Array): Float64Array {
  const a = gram(fixed, N, F);
  const b = new Float64Array(F);
  for (let k = 0; k < F; k++) a[k * F + k]! += LAMBDA;
  columns.forEach((col, i) => {
    for (let r = 0; r < F; r++) {
      b[r]! += c[i]! * fixed[col * F + r]!;
      for (let s = 0; s < F; s++) a[r * F + s]! += (c[i]! - 1) * fixed[col * F + r]! * fixed[col * F + s]!;
    }
  });
  choleskySolve(a, b, F);
  return b;
}

describe("SparseRowSolver", () => {
  it("finds the same x as solving the row's full normal equations, for every row size it takes", () => {
    const random = seededRandom(7);
    const fixed = Float32Array.from({ length: N * F }, () => random() - 0.5);
    const solver = new SparseRowSolver(gram(fixed, N, F), LAMBDA, fixed, N, F);
    for (let m = 1; m <= EXACT_MAX_ENTRIES; m++) {
      // Confidence 1 (no extra weight) and a column met twice are both allowed.
      const columns = Int32Array.from({ length: m }, (_, i) => (i === 1 ? 0 : Math.floor(random() * N)));
      const c = Float64Array.from({ length: m }, (_, i) => (i === 2 ? 1 : 1 + 20 * random()));
      const out = new Float32Array(F * 2);
      solver.solve(columns, 0, m, c, out, F);
      const expected = directSolve(fixed, columns, c);
      for (let k = 0; k < F; k++) expect(out[F + k]).toBeCloseTo(expected[k]!, 4);
      expect(out.subarray(0, F).every((v) => v === 0)).toBe(true);
    }
  });

  it("reads only the row's own slice of the column list", () => {
    const random = seededRandom(9);
    const fixed = Float32Array.from({ length: N * F }, () => random() - 0.5);
    const solver = new SparseRowSolver(gram(fixed, N, F), LAMBDA, fixed, N, F);
    const columns = Int32Array.of(5, 17, 3, 29);
    const c = Float64Array.of(4, 9);
    const out = new Float32Array(F);
    solver.solve(columns, 1, 3, c, out, 0);
    const expected = directSolve(fixed, Int32Array.of(17, 3), c);
    for (let k = 0; k < F; k++) expect(out[k]).toBeCloseTo(expected[k]!, 4);
  });
});
