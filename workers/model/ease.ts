/**
 * EASE (Steck 2019), the closed-form item-item model that tops published tables on small and medium data:
 * B = argmin |X − XB|² + λ|B|² with diag(B) = 0, so B = I − P·diag(1/diag P), P = (XᵀX + λI)⁻¹, and a user's
 * score for item j is Σ_i x_i·B_ij over the items i they interacted with. X is binary (a pair counts once).
 *
 * Its cost grows with the cube of the smaller side of X, so it is fitted only where that side is small, in the
 * form that side allows:
 * - primal (few items): B itself, n × n;
 * - dual (few users): with K = (XXᵀ + λI)⁻¹ (m × m), P = (I − XᵀKX)/λ, so a query's X·P needs K and X, not an
 *   items × items matrix; scoring a query costs m² + |X| instead of |query|·n.
 */
export type ClosedForm = PrimalForm | DualForm;

export interface PrimalForm {
  form: "primal";
  lambda: number;
  items: number;
  /** Row-major n × n: weights[i·n + j] is how much having interacted with i speaks for j. */
  weights: Float32Array;
}

export interface DualForm {
  form: "dual";
  lambda: number;
  items: number;
  users: number;
  /** K = (XXᵀ/λ + I)⁻¹ = λ·(XXᵀ + λI)⁻¹, m × m. */
  inverse: Float32Array;
  /** X by user and by item (binary: the columns only). */
  byUser: { indptr: Int32Array; indices: Int32Array };
  byItem: { indptr: Int32Array; indices: Int32Array };
  /** P̃_jj = λ·P_jj = 1 − x_jᵀ K x_j / λ per item (0: no user has it). */
  diagonal: Float32Array;
}

/** The buffers a model's closed form holds, to move them between threads instead of copying. */
export function closedFormBuffers(model: ClosedForm | undefined): ArrayBufferLike[] {
  if (!model) return [];
  if (model.form === "primal") return [model.weights.buffer];
  const { inverse, diagonal, byUser, byItem } = model;
  return [inverse.buffer, diagonal.buffer, byUser.indptr.buffer, byUser.indices.buffer, byItem.indptr.buffer, byItem.indices.buffer];
}

/**
 * Fills `out` (length ≥ items) with the scores of a query: items with weights (a user's interactions, weighted
 * by recency). Items the model has no evidence for score 0.
 */
export function closedFormScores(model: ClosedForm, items: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array): void {
  out.fill(0, 0, model.items);
  if (model.form === "primal") {
    const n = model.items;
    for (let q = 0; q < items.length; q++) {
      if (items[q]! >= n) continue;
      const row = items[q]! * n;
      const w = weights[q]!;
      for (let j = 0; j < n; j++) out[j]! += w * model.weights[row + j]!;
    }
    return;
  }
  dualScores(model, userSide(model, items, weights), items, weights, out);
}

/** The query's m-vector a = K·X·x/λ, computed once per query (m² multiply-adds). */
export function userSide(model: DualForm, items: ArrayLike<number>, weights: ArrayLike<number>): Float64Array {
  const m = model.users;
  const xx = new Float64Array(m);
  for (let q = 0; q < items.length; q++) {
    const i = items[q]!;
    if (i >= model.items) continue;
    const w = weights[q]! / model.lambda;
    for (let a = model.byItem.indptr[i]!; a < model.byItem.indptr[i + 1]!; a++) xx[model.byItem.indices[a]!]! += w;
  }
  const out = new Float64Array(m);
  for (let v = 0; v < m; v++) {
    const s = xx[v]!;
    if (s === 0) continue;
    const row = v * m;
    for (let u = 0; u < m; u++) out[u]! += s * model.inverse[row + u]!;
  }
  return out;
}

/**
 * Scores from a query's m-vector a: with P = (XᵀX + λI)⁻¹ = (I − XᵀKX/λ)/λ, λ·(xP)_j = x_j − (Xᵀa)_j and
 * λ·P_jj = P̃_jj, so score_j = Σ_{i≠j} x_i·B_ij = x_j − (xP)_j/P_jj = x_j − (x_j − (Xᵀa)_j)/P̃_jj.
 */
export function dualScores(model: DualForm, a: Float64Array, items: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array): void {
  out.fill(0, 0, model.items);
  for (let u = 0; u < model.users; u++) {
    const s = a[u]!;
    if (s === 0) continue;
    for (let b = model.byUser.indptr[u]!; b < model.byUser.indptr[u + 1]!; b++) out[model.byUser.indices[b]!]! += s;
  }
  const x = new Map<number, number>();
  for (let q = 0; q < items.length; q++) if (items[q]! < model.items) x.set(items[q]!, (x.get(items[q]!) ?? 0) + weights[q]!);
  for (let j = 0; j < model.items; j++) {
    const d = model.diagonal[j]!;
    const xj = x.get(j) ?? 0;
    out[j] = d === 0 ? 0 : xj - (xj - out[j]!) / d;
  }
}
