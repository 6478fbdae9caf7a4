import { describe, expect, it } from "vitest";
import { choleskyFactor, choleskySubstitute, gram, invertSpd } from "../../../workers/model/linalg.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";

describe("gram", () => {
  it("is VᵀV, symmetric, for any number of rows (blocks of four and the rest)", () => {
    const random = seededRandom(3);
    const f = 8;
    for (const n of [0, 1, 3, 4, 5, 11]) {
      const v = Float32Array.from({ length: n * f }, () => random() - 0.5);
      const g = gram(v, n, f);
      for (let r = 0; r < f; r++) {
        for (let c = 0; c < f; c++) {
          let expected = 0;
          for (let i = 0; i < n; i++) expected += v[i * f + r]! * v[i * f + c]!;
          expect(g[r * f + c]).toBeCloseTo(expected, 10);
        }
      }
    }
  });
});

describe("Cholesky", () => {
  it("solves A·x = b for several right-hand sides through one factor", () => {
    const random = seededRandom(4);
    const f = 6;
    const v = Float32Array.from({ length: 20 * f }, () => random() - 0.5);
    const a = gram(v, 20, f);
    for (let k = 0; k < f; k++) a[k * f + k]! += 0.1;
    const factor = Float64Array.from(a);
    choleskyFactor(factor, f);
    for (let trial = 0; trial < 3; trial++) {
      const b = Float64Array.from({ length: f }, () => random());
      const x = Float64Array.from(b);
      choleskySubstitute(factor, x, f);
      for (let r = 0; r < f; r++) {
        let ax = 0;
        for (let c = 0; c < f; c++) ax += a[r * f + c]! * x[c]!;
        expect(ax).toBeCloseTo(b[r]!, 9);
      }
    }
  });
});

describe("invertSpd", () => {
  it("gives the inverse of a symmetric positive definite matrix: A·A⁻¹ = I", () => {
    const random = seededRandom(8);
    const f = 7;
    const v = Float32Array.from({ length: 12 * f }, () => random() - 0.5);
    const a = gram(v, 12, f);
    for (let k = 0; k < f; k++) a[k * f + k]! += 0.5;
    const inverse = invertSpd(Float64Array.from(a), f);
    for (let r = 0; r < f; r++) {
      for (let c = 0; c < f; c++) {
        let s = 0;
        for (let k = 0; k < f; k++) s += a[r * f + k]! * inverse[k * f + c]!;
        expect(s).toBeCloseTo(r === c ? 1 : 0, 9);
      }
    }
  });
});
