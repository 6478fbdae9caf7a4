import type { AlsParams } from "../../src/wire/als.js";
import { gram, matVec } from "../model/linalg.js";
import { confidence } from "../model/model.js";
import { seededRandom } from "../model/seededRandom.js";
import { EXACT_MAX_ENTRIES, SparseRowSolver } from "./sparseRowSolver.js";

/** Interactions as compressed rows: row r's columns are indices[indptr[r] .. indptr[r+1]), with their strengths. */
export interface SparseRows {
  rows: number;
  cols: number;
  indptr: Int32Array;
  indices: Int32Array;
  values: Float32Array;
}

export interface AlsFactors {
  userVectors: Float32Array;
  itemVectors: Float32Array;
}

/** Weighted ALS for implicit feedback, each half-step solved row by row with a few conjugate-gradient steps. */
export function trainAls(byUser: SparseRows, params: AlsParams, progress?: (iteration: number) => void): AlsFactors {
  const f = params.factors;
  const byItem = transpose(byUser);
  const random = seededRandom(params.seed);
  const init = (n: number) => Float32Array.from({ length: n * f }, () => (random() - 0.5) * 0.02);
  const userVectors = withoutEmptyRows(init(byUser.rows), byUser, f);
  const itemVectors = withoutEmptyRows(init(byUser.cols), byItem, f);
  for (let it = 0; it < params.iterations; it++) {
    solveRows(byUser, itemVectors, userVectors, params);
    solveRows(byItem, userVectors, itemVectors, params);
    progress?.(it + 1);
  }
  return { userVectors, itemVectors };
}

/**
 * Zeroes the starting vector of every row with no entries (a user upserted before any event, an item nobody has
 * touched): such a row is never solved, so a random start would stay as its vector, weigh in the other side's
 * Gram matrix at every step and rank for that user. The draws are made for every row all the same, so the rows
 * with entries start where they always did.
 */
function withoutEmptyRows(v: Float32Array, m: SparseRows, f: number): Float32Array {
  for (let r = 0; r < m.rows; r++) if (m.indptr[r] === m.indptr[r + 1]) v.fill(0, r * f, r * f + f);
  return v;
}

/**
 * For every row r, improves x_r towards argmin Σ c (1 − x_r·y)² + λ|x_r|² with the other side's vectors Y fixed:
 * exactly for a row with few entries, by a few conjugate-gradient steps for the others.
 */
function solveRows(m: SparseRows, fixed: Float32Array, solved: Float32Array, params: AlsParams): void {
  const f = params.factors;
  const yty = gram(fixed, m.cols, f);
  const sparse = new SparseRowSolver(yty, params.regularization, fixed, m.cols, f);
  const confidences = new Float64Array(EXACT_MAX_ENTRIES);
  const x = new Float64Array(f);
  const r = new Float64Array(f);
  const p = new Float64Array(f);
  const ap = new Float64Array(f);
  for (let row = 0; row < m.rows; row++) {
    const from = m.indptr[row]!;
    const to = m.indptr[row + 1]!;
    if (from === to) continue;
    const off = row * f;
    if (to - from <= EXACT_MAX_ENTRIES) {
      for (let j = from; j < to; j++) confidences[j - from] = confidence(m.values[j]!, params.alpha);
      sparse.solve(m.indices, from, to, confidences, solved, off);
      continue;
    }
    for (let k = 0; k < f; k++) x[k] = solved[off + k]!;
    // r = b − A·x, with A = YᵀY + λI + Σ (c − 1) y yᵀ and b = Σ c y
    matVec(yty, x, r, f);
    for (let k = 0; k < f; k++) r[k] = -r[k]! - params.regularization * x[k]!;
    for (let j = from; j < to; j++) {
      const yOff = m.indices[j]! * f;
      const c = confidence(m.values[j]!, params.alpha);
      let yx = 0;
      for (let k = 0; k < f; k++) yx += fixed[yOff + k]! * x[k]!;
      const w = c - (c - 1) * yx;
      for (let k = 0; k < f; k++) r[k]! += w * fixed[yOff + k]!;
    }
    p.set(r);
    let rsOld = 0;
    for (let k = 0; k < f; k++) rsOld += r[k]! * r[k]!;
    for (let step = 0; step < params.cgSteps && rsOld > 1e-12; step++) {
      matVec(yty, p, ap, f);
      for (let k = 0; k < f; k++) ap[k]! += params.regularization * p[k]!;
      for (let j = from; j < to; j++) {
        const yOff = m.indices[j]! * f;
        const c1 = confidence(m.values[j]!, params.alpha) - 1;
        let yp = 0;
        for (let k = 0; k < f; k++) yp += fixed[yOff + k]! * p[k]!;
        const w = c1 * yp;
        for (let k = 0; k < f; k++) ap[k]! += w * fixed[yOff + k]!;
      }
      let pAp = 0;
      for (let k = 0; k < f; k++) pAp += p[k]! * ap[k]!;
      const a = rsOld / pAp;
      let rsNew = 0;
      for (let k = 0; k < f; k++) {
        x[k]! += a * p[k]!;
        r[k]! -= a * ap[k]!;
        rsNew += r[k]! * r[k]!;
      }
      const beta = rsNew / rsOld;
      for (let k = 0; k < f; k++) p[k] = r[k]! + beta * p[k]!;
      rsOld = rsNew;
    }
    for (let k = 0; k < f; k++) solved[off + k] = x[k]!;
  }
}

export function transpose(m: SparseRows): SparseRows {
  const counts = new Int32Array(m.cols + 1);
  for (let j = 0; j < m.indptr[m.rows]!; j++) counts[m.indices[j]! + 1]!++;
  for (let c = 0; c < m.cols; c++) counts[c + 1]! += counts[c]!;
  const indptr = counts.slice();
  const fill = counts.slice();
  const nnz = m.indptr[m.rows]!;
  const indices = new Int32Array(nnz);
  const values = new Float32Array(nnz);
  for (let row = 0; row < m.rows; row++) {
    for (let j = m.indptr[row]!; j < m.indptr[row + 1]!; j++) {
      const at = fill[m.indices[j]!]!++;
      indices[at] = row;
      values[at] = m.values[j]!;
    }
  }
  return { rows: m.cols, cols: m.rows, indptr, indices, values };
}
