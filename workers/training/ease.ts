import type { SparseRows } from "./als.js";

/**
 * EASE (Steck 2019): an item × item weight matrix in closed form, B = I − P·diag(1/diag(P)) with
 * P = (XᵀX + λI)⁻¹ and diag(B) = 0; a user's scores are their interaction row times B. One dense n×n inverse,
 * O(n³) time and 8·n² bytes: meant for catalogs up to a few thousand items. Not used in serving (evaluated
 * offline against ALS by bench/evaluate.ts --ease).
 */
export interface EaseModel {
  items: number;
  /** Row-major n×n: weights[i·n + j] is how much interacting with i speaks for j. */
  weights: Float32Array;
}

/** `binary`: every interaction counts 1 (as in the paper); otherwise the strengths are used as they are. */
export function trainEase(byUser: SparseRows, lambda: number, binary = true): EaseModel {
  const n = byUser.cols;
  const g = gramOfRows(byUser, binary);
  for (let i = 0; i < n; i++) g[i * n + i]! += lambda;
  const p = invertSpd(g, n);
  const weights = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (i !== j) weights[i * n + j] = -p[i * n + j]! / p[j * n + j]!;
  }
  return { items: n, weights };
}

/** XᵀX of a sparse user × item matrix (dense, items × items). */
function gramOfRows(m: SparseRows, binary: boolean): Float64Array {
  const n = m.cols;
  const g = new Float64Array(n * n);
  for (let r = 0; r < m.rows; r++) {
    for (let a = m.indptr[r]!; a < m.indptr[r + 1]!; a++) {
      const i = m.indices[a]!;
      const vi = binary ? 1 : m.values[a]!;
      for (let b = m.indptr[r]!; b < m.indptr[r + 1]!; b++) g[i * n + m.indices[b]!]! += vi * (binary ? 1 : m.values[b]!);
    }
  }
  return g;
}

/**
 * The inverse of a symmetric positive definite matrix (row-major, overwritten), via Cholesky A = L·Lᵀ, then
 * L⁻¹, then A⁻¹ = L⁻ᵀ·L⁻¹. Each step walks rows, so the inner loops run over contiguous memory.
 */
export function invertSpd(a: Float64Array, n: number): Float64Array {
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let d = a[rj + j]!;
    for (let k = 0; k < j; k++) d -= a[rj + k]! * a[rj + k]!;
    const ljj = Math.sqrt(Math.max(d, 1e-12));
    a[rj + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let s = a[ri + j]!;
      for (let k = 0; k < j; k++) s -= a[ri + k]! * a[rj + k]!;
      a[ri + j] = s / ljj;
    }
  }
  // Row i of L⁻¹ is (e_i − Σ_{k<i} L_ik · row k of L⁻¹) / L_ii.
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    for (let k = 0; k < i; k++) {
      const lik = a[ri + k]!;
      if (lik === 0) continue;
      const rk = k * n;
      for (let j = 0; j <= k; j++) inv[ri + j]! -= lik * inv[rk + j]!;
    }
    inv[ri + i] = 1;
    const lii = a[ri + i]!;
    for (let j = 0; j <= i; j++) inv[ri + j]! /= lii;
  }
  // A⁻¹ = Σ_k (row k of L⁻¹)ᵀ (row k of L⁻¹): accumulate the lower triangle, then mirror it.
  const out = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    const rk = k * n;
    for (let i = 0; i <= k; i++) {
      const v = inv[rk + i]!;
      if (v === 0) continue;
      const ri = i * n;
      for (let j = 0; j <= i; j++) out[ri + j]! += v * inv[rk + j]!;
    }
  }
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out[i * n + j] = out[j * n + i]!;
  return out;
}
