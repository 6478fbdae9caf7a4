import { describe, expect, it } from "vitest";
import type { SparseRows } from "../../../workers/training/als.js";
import { closedFormFits, DUAL_MAX_USERS, fitForm, PRIMAL_MAX_ITEMS, trainClosedForm } from "../../../workers/training/ease.js";
import { closedFormScores } from "../../../workers/model/ease.js";
import { invertSpd } from "../../../workers/model/linalg.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";

/** A binary users × items matrix with each pair present with probability `density`. */
function randomBinary(users: number, items: number, density: number, seed: number): SparseRows {
  const random = seededRandom(seed);
  const indptr = new Int32Array(users + 1);
  const indices: number[] = [];
  for (let u = 0; u < users; u++) {
    for (let i = 0; i < items; i++) if (random() < density) indices.push(i);
    indptr[u + 1] = indices.length;
  }
  return { rows: users, cols: items, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
}

/** EASE's scores straight from the definition: B = I − P·diag(1/diag P), P = (XᵀX + λI)⁻¹, score = x·B. */
function easeByDefinition(x: SparseRows, lambda: number, query: number[], weights: number[]): number[] {
  const n = x.cols;
  const g = new Float64Array(n * n);
  for (let u = 0; u < x.rows; u++) {
    for (let a = x.indptr[u]!; a < x.indptr[u + 1]!; a++)
      for (let b = x.indptr[u]!; b < x.indptr[u + 1]!; b++) g[x.indices[a]! * n + x.indices[b]!]!++;
  }
  for (let i = 0; i < n; i++) g[i * n + i]! += lambda;
  const p = invertSpd(g, n);
  return Array.from({ length: n }, (_, j) => query.reduce((s, i, q) => s + (i === j ? 0 : weights[q]! * (-p[i * n + j]! / p[j * n + j]!)), 0));
}

describe("closed form (EASE)", () => {
  const x = randomBinary(12, 30, 0.25, 5);
  const query = [3, 7, 8, 21];
  const weights = [1, 1.5, 2, 1];

  it.each(["primal", "dual"] as const)("scores a weighted query as EASE's definition does, in the %s form", (form) => {
    const model = fitForm(x, 4, form);
    const out = new Float64Array(x.cols);
    closedFormScores(model, query, weights, out);
    const expected = easeByDefinition(x, 4, query, weights);
    // Items nobody has carry no evidence: the closed form scores them 0 instead of a weight on nothing.
    const held = new Set(x.indices);
    expected.forEach((e, j) => expect(out[j]).toBeCloseTo(held.has(j) ? e : 0, 5));
  });

  it("ranks the items of users like the querying one first", () => {
    // Two tastes: users 0-9 take items 0-4, users 10-19 items 5-9; a query of items 0 and 1 wants 2, 3 and 4.
    const indptr = new Int32Array(21);
    const indices: number[] = [];
    for (let u = 0; u < 20; u++) {
      for (let k = 0; k < 5; k++) if ((u + k) % 4 !== 0) indices.push((u < 10 ? 0 : 5) + k);
      indptr[u + 1] = indices.length;
    }
    const m: SparseRows = { rows: 20, cols: 10, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
    for (const form of ["primal", "dual"] as const) {
      const out = new Float64Array(10);
      closedFormScores(fitForm(m, 1, form), [0, 1], [1, 1], out);
      const ranked = [2, 3, 4, 5, 6, 7, 8, 9].sort((a, b) => out[b]! - out[a]!);
      expect(ranked.slice(0, 3).sort(), form).toEqual([2, 3, 4]);
    }
  });

  it("is fitted in the dual form for few users, the primal for few items, and not at all when both sides are large", () => {
    expect(closedFormFits(610, 9_742)).toBe("dual");
    expect(closedFormFits(50_000, 2_000)).toBe("primal");
    expect(closedFormFits(DUAL_MAX_USERS + 1, PRIMAL_MAX_ITEMS + 1)).toBeUndefined();
    expect(closedFormFits(50_000, 100_000)).toBeUndefined();
  });

  it("fits the dual form over the users with events only, however many users without any the organisation holds", () => {
    // 40 users with events among 5,000 upserted ones: the inverse is 40 × 40, and the scores are those without the rest.
    const active = randomBinary(40, 300, 0.1, 9);
    const indptr = new Int32Array(5_001);
    for (let u = 0; u < 5_000; u++) indptr[u + 1] = u % 125 === 124 ? active.indptr[(u + 1) / 125]! : indptr[u]!;
    const withIdle: SparseRows = { ...active, rows: 5_000, indptr };
    const idle = trainClosedForm(withIdle, 1)!;
    const alone = trainClosedForm(active, 1)!;
    expect(idle.form).toBe("dual");
    expect(idle.form === "dual" && idle.users).toBe(40);
    expect(idle.form === "dual" && idle.inverse.length).toBe(40 * 40);
    const [a, b] = [new Float64Array(300), new Float64Array(300)];
    closedFormScores(idle, query, weights, a);
    closedFormScores(alone, query, weights, b);
    expect(idle.lambda).toBe(alone.lambda);
    a.forEach((s, j) => expect(s).toBeCloseTo(b[j]!, 6));
  });

  it("chooses a small λ where tastes are sharp and a large one where only popularity speaks", () => {
    const random = seededRandom(11);
    const rows = (pick: (u: number, i: number) => boolean): SparseRows => {
      const indptr = new Int32Array(301);
      const indices: number[] = [];
      for (let u = 0; u < 300; u++) {
        for (let i = 0; i < 60; i++) if (pick(u, i)) indices.push(i);
        indptr[u + 1] = indices.length;
      }
      return { rows: 300, cols: 60, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
    };
    // Six tastes of ten items each; or every user drawing the same skewed popularity, independently.
    const sharp = rows((u, i) => Math.floor(i / 10) === u % 6 && random() < 0.7);
    const popularOnly = rows((_u, i) => random() < 0.6 / (1 + i / 4));
    expect(trainClosedForm(sharp, 1)!.lambda).toBeLessThanOrEqual(100);
    expect(trainClosedForm(popularOnly, 1)!.lambda).toBeGreaterThanOrEqual(1_000);
  });
});
