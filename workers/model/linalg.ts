/** Small dense linear algebra on typed arrays, enough for ALS (f ≤ a few hundred). */

/**
 * codes[off .. off+f) · q: a quantized item vector against a query, the innermost loop of every vector search.
 * Kept apart from rowDot so that each stays monomorphic; four running sums let the multiply-adds overlap.
 */
export function codeDot(codes: Int8Array, off: number, q: Float64Array, f: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < f; k += 4) {
    s0 += codes[off + k]! * q[k]!;
    s1 += codes[off + k + 1]! * q[k + 1]!;
    s2 += codes[off + k + 2]! * q[k + 2]!;
    s3 += codes[off + k + 3]! * q[k + 3]!;
  }
  for (; k < f; k++) s0 += codes[off + k]! * q[k]!;
  return s0 + s1 + s2 + s3;
}

/** rows[off .. off+f) · q for float rows (IVF centroids); see codeDot. */
export function rowDot(rows: Float32Array, off: number, q: Float64Array, f: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < f; k += 4) {
    s0 += rows[off + k]! * q[k]!;
    s1 += rows[off + k + 1]! * q[k + 1]!;
    s2 += rows[off + k + 2]! * q[k + 2]!;
    s3 += rows[off + k + 3]! * q[k + 3]!;
  }
  for (; k < f; k++) s0 += rows[off + k]! * q[k]!;
  return s0 + s1 + s2 + s3;
}

/** out = M·v for a symmetric f×f matrix M (row-major). */
export function matVec(m: Float64Array, v: Float64Array, out: Float64Array, f: number): void {
  for (let r = 0; r < f; r++) {
    let s = 0;
    const row = r * f;
    for (let c = 0; c < f; c++) s += m[row + c]! * v[c]!;
    out[r] = s;
  }
}

/** Solves A·x = b in place (x returned in b) for a symmetric positive definite A (row-major, overwritten). */
export function choleskySolve(a: Float64Array, b: Float64Array, f: number): void {
  choleskyFactor(a, f);
  choleskySubstitute(a, b, f);
}

/** Overwrites the lower triangle of a symmetric positive definite A (row-major) with L, where A = L·Lᵀ. */
export function choleskyFactor(a: Float64Array, f: number): void {
  for (let j = 0; j < f; j++) {
    let d = a[j * f + j]!;
    for (let k = 0; k < j; k++) d -= a[j * f + k]! * a[j * f + k]!;
    const ljj = Math.sqrt(Math.max(d, 1e-12));
    a[j * f + j] = ljj;
    for (let i = j + 1; i < f; i++) {
      let s = a[i * f + j]!;
      for (let k = 0; k < j; k++) s -= a[i * f + k]! * a[j * f + k]!;
      a[i * f + j] = s / ljj;
    }
  }
}

/** Solves L·Lᵀ·x = b in place, with L from choleskyFactor. */
export function choleskySubstitute(l: Float64Array, b: Float64Array, f: number): void {
  for (let i = 0; i < f; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * f + k]! * b[k]!;
    b[i] = s / l[i * f + i]!;
  }
  for (let i = f - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < f; k++) s -= l[k * f + i]! * b[k]!;
    b[i] = s / l[i * f + i]!;
  }
}

/**
 * Gram matrix VᵀV (f×f) of n row vectors. Four rows at a time: each entry of the upper triangle is then read
 * and written once per four rows rather than once per row, which is what bounds this loop.
 */
export function gram(v: Float32Array, n: number, f: number): Float64Array {
  const g = new Float64Array(f * f);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const o0 = i * f;
    const o1 = o0 + f;
    const o2 = o1 + f;
    const o3 = o2 + f;
    for (let r = 0; r < f; r++) {
      const a0 = v[o0 + r]!;
      const a1 = v[o1 + r]!;
      const a2 = v[o2 + r]!;
      const a3 = v[o3 + r]!;
      const row = r * f;
      for (let c = r; c < f; c++) g[row + c]! += a0 * v[o0 + c]! + a1 * v[o1 + c]! + a2 * v[o2 + c]! + a3 * v[o3 + c]!;
    }
  }
  for (; i < n; i++) {
    const off = i * f;
    for (let r = 0; r < f; r++) {
      const vr = v[off + r]!;
      const row = r * f;
      for (let c = r; c < f; c++) g[row + c]! += vr * v[off + c]!;
    }
  }
  for (let r = 0; r < f; r++) for (let c = 0; c < r; c++) g[r * f + c] = g[c * f + r]!;
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
