import { type SparseRows, transpose } from "../../workers/training/als.js";
import { invertSpd } from "../../workers/model/linalg.js";
import { TopK } from "../../workers/model/topK.js";
import type { Interaction } from "./csv.js";
import { DEFAULT_DEPTH, userScores } from "./metrics.js";
import type { Ranker } from "./rankers.js";
import { isPositive, type HeldOutUser } from "./split.js";

/**
 * References computed the textbook way from the training rows alone (no server code): what a served strategy
 * is measured against. Each excludes the user's training items, as `personalized` does by default.
 */

/** The training rows as a binary user × item matrix (a pair counts once, whatever its events). */
interface BinaryMatrix {
  matrix: SparseRows;
  userRow: Map<string, number>;
  items: string[];
}

export function binaryMatrix(train: Interaction[], items: readonly string[]): BinaryMatrix {
  const col = new Map(items.map((id, j) => [id, j]));
  const userRow = new Map<string, number>();
  const pairs = new Map<number, Set<number>>();
  for (const r of train) {
    if (!isPositive(r)) continue;
    let u = userRow.get(r.user);
    if (u === undefined) userRow.set(r.user, (u = userRow.size));
    let set = pairs.get(u);
    if (!set) pairs.set(u, (set = new Set()));
    set.add(col.get(r.item)!);
  }
  const indptr = new Int32Array(userRow.size + 1);
  const indices: number[] = [];
  for (let u = 0; u < userRow.size; u++) {
    indices.push(...[...(pairs.get(u) ?? [])].sort((a, b) => a - b));
    indptr[u + 1] = indices.length;
  }
  const nnz = indices.length;
  return {
    matrix: { rows: userRow.size, cols: items.length, indptr, indices: Int32Array.from(indices), values: new Float32Array(nnz).fill(1) },
    userRow,
    items: [...items],
  };
}

/** A ranker from a function that fills the scores of every item for a matrix row (higher is better). */
function matrixRanker(name: string, b: BinaryMatrix, fill: (u: number, scores: Float64Array) => void, k: number): Ranker {
  const scores = new Float64Array(b.items.length);
  return {
    name,
    recommend(user) {
      const u = b.userRow.get(user);
      if (u === undefined) return { items: [], fellBack: true };
      fill(u, scores);
      for (let a = b.matrix.indptr[u]!; a < b.matrix.indptr[u + 1]!; a++) scores[b.matrix.indices[a]!] = -Infinity;
      const top = new TopK(k);
      for (let j = 0; j < scores.length; j++) if (scores[j]! > -Infinity && top.wouldTake(scores[j]!, j)) top.offer(scores[j]!, j);
      return { items: Array.from(top.sorted().items, (j) => b.items[j]!), fellBack: false };
    },
  };
}

/** All-time most popular: items by how many training users interacted with them. */
export function popularityReference(b: BinaryMatrix, k = DEFAULT_DEPTH): Ranker {
  const counts = new Float64Array(b.items.length);
  for (const j of b.matrix.indices) counts[j]!++;
  return matrixRanker("reference: all-time most popular", b, (_u, scores) => scores.set(counts), k);
}

/** Degree exponents of a normalised co-occurrence: S_ij = d_i^−β·d_j^−δ·Σ_u x_ui·x_uj·d_u^−γ. */
interface CooccurrenceExponents {
  beta: number;
  gamma: number;
  delta: number;
}

/** GF-CF's linear filter: R̃ = D_u^-1/2 R D_i^-1/2, P̃ = R̃ᵀR̃ (β = δ = ½, γ = 1). */
export const GF_CF: CooccurrenceExponents = { beta: 0.5, gamma: 1, delta: 0.5 };

/**
 * The linear filter of GF-CF (Shen et al., "How Powerful is Graph Convolution for Recommendation?", CIKM 2021):
 * R̃ = D_u^-1/2 R D_i^-1/2 (D the users' and items' degrees), P̃ = R̃ᵀR̃ (items × items), and user u's scores
 * r_u·P̃; or the same with other exponents. Every pair of items that share a user is kept (no pruning), and every
 * item is scored: with the served model's exponents, this is what the served model would rank if it kept whole
 * rows.
 */
export function cooccurrenceReference(b: BinaryMatrix, name: string, exponents: CooccurrenceExponents, k = DEFAULT_DEPTH): Ranker {
  const { beta, gamma, delta } = exponents;
  const { matrix } = b;
  const byItem = transpose(matrix);
  const n = matrix.cols;
  const userDegree = (u: number) => matrix.indptr[u + 1]! - matrix.indptr[u]!;
  const itemDegree = (j: number) => byItem.indptr[j + 1]! - byItem.indptr[j]!;
  const indptr = new Float64Array(n + 1);
  let indices = new Int32Array(1 << 20);
  let values = new Float32Array(1 << 20);
  let nnz = 0;
  const sums = new Float64Array(n);
  const touched = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let count = 0;
    for (let a = byItem.indptr[i]!; a < byItem.indptr[i + 1]!; a++) {
      const u = byItem.indices[a]!;
      const w = userDegree(u) ** -gamma;
      for (let c = matrix.indptr[u]!; c < matrix.indptr[u + 1]!; c++) {
        const j = matrix.indices[c]!;
        if (sums[j] === 0) touched[count++] = j;
        sums[j]! += w;
      }
    }
    if (nnz + count > indices.length) {
      const size = Math.max(2 * indices.length, nnz + count);
      const grownIndices = new Int32Array(size);
      grownIndices.set(indices);
      indices = grownIndices;
      const grownValues = new Float32Array(size);
      grownValues.set(values);
      values = grownValues;
    }
    for (let t = 0; t < count; t++) {
      const j = touched[t]!;
      indices[nnz] = j;
      values[nnz++] = sums[j]! * itemDegree(i) ** -beta * itemDegree(j) ** -delta;
      sums[j] = 0;
    }
    indptr[i + 1] = nnz;
  }
  const fill = (u: number, scores: Float64Array) => {
    scores.fill(0);
    for (let a = matrix.indptr[u]!; a < matrix.indptr[u + 1]!; a++) {
      const i = matrix.indices[a]!;
      for (let c = indptr[i]!; c < indptr[i + 1]!; c++) scores[indices[c]!]! += values[c]!;
    }
  };
  return matrixRanker(name, b, fill, k);
}

/** EASE works on a dense min(users, items)² matrix with a cubic solve: beyond this it would take minutes. */
export const EASE_MAX_SIDE = 6_000;

/**
 * EASE (Steck 2019) on the binary matrix. With fewer users than items it is solved in its dual form, which gives
 * the same scores: with K = (XXᵀ + λI)⁻¹ (users × users), P = (XᵀX + λI)⁻¹ = (I − XᵀKX)/λ, user u's row of
 * X·P is row u of K·X, and diag(P)_j = (1 − x_jᵀKx_j)/λ for item column x_j. So u's score for an unseen item j
 * is −(KX)_uj / P_jj, without the items × items matrix.
 */
function easeScorer(b: BinaryMatrix, lambda: number): (u: number, scores: Float64Array) => void {
  const { matrix } = b;
  if (matrix.rows >= matrix.cols) return primalEase(matrix, lambda);
  const m = matrix.rows;
  const k = userGram(matrix);
  for (let u = 0; u < m; u++) k[u * m + u]! += lambda;
  const inverse = invertSpd(k, m);
  const byItem = transpose(matrix);
  const diagonal = new Float64Array(matrix.cols);
  for (let j = 0; j < matrix.cols; j++) {
    let quad = 0;
    for (let a = byItem.indptr[j]!; a < byItem.indptr[j + 1]!; a++) {
      const row = byItem.indices[a]! * m;
      for (let c = byItem.indptr[j]!; c < byItem.indptr[j + 1]!; c++) quad += inverse[row + byItem.indices[c]!]!;
    }
    diagonal[j] = (1 - quad) / lambda;
  }
  return (u, scores) => {
    scores.fill(0);
    for (let v = 0; v < m; v++) {
      const w = inverse[u * m + v]!;
      for (let a = matrix.indptr[v]!; a < matrix.indptr[v + 1]!; a++) scores[matrix.indices[a]!]! += w;
    }
    for (let j = 0; j < scores.length; j++) scores[j] = -scores[j]! / diagonal[j]!;
  };
}

function primalEase(matrix: SparseRows, lambda: number): (u: number, scores: Float64Array) => void {
  const model = trainEase(matrix, lambda);
  const n = model.items;
  return (u, scores) => {
    scores.fill(0);
    for (let a = matrix.indptr[u]!; a < matrix.indptr[u + 1]!; a++) {
      const row = matrix.indices[a]! * n;
      for (let j = 0; j < n; j++) scores[j]! += model.weights[row + j]!;
    }
  };
}

/** XXᵀ of a binary matrix (users × users, dense). */
function userGram(matrix: SparseRows): Float64Array {
  const m = matrix.rows;
  const g = new Float64Array(m * m);
  const byItem = transpose(matrix);
  for (let j = 0; j < byItem.rows; j++) {
    for (let a = byItem.indptr[j]!; a < byItem.indptr[j + 1]!; a++) {
      const row = byItem.indices[a]! * m;
      for (let c = byItem.indptr[j]!; c < byItem.indptr[j + 1]!; c++) g[row + byItem.indices[c]!]!++;
    }
  }
  return g;
}

export function easeRanker(b: BinaryMatrix, lambda: number, k = DEFAULT_DEPTH): Ranker {
  return matrixRanker(`reference: EASE (λ ${lambda})`, b, easeScorer(b, lambda), k);
}

/** The λ values tried on the validation part; published tables find the best of ML sets between 100 and 500. */
const EASE_LAMBDAS = [50, 100, 200, 300, 500, 1000, 2000];

/** The λ whose EASE, fitted on `fit`, ranks the validation users' held-out items best (nDCG@10). */
export function chooseEaseLambda(fit: BinaryMatrix, validation: HeldOutUser[], progress: (s: string) => void): number {
  let best = { lambda: EASE_LAMBDAS[0]!, ndcg: -1 };
  for (const lambda of EASE_LAMBDAS) {
    const ranker = easeRanker(fit, lambda);
    let sum = 0;
    for (const u of validation) sum += userScores(ranker.recommend(u.user).items, new Set(u.relevant)).ndcg;
    const ndcg = sum / Math.max(1, validation.length);
    progress(`EASE λ ${lambda}: validation nDCG@10 ${ndcg.toFixed(4)}`);
    if (ndcg > best.ndcg) best = { lambda, ndcg };
  }
  return best.lambda;
}

/** The primal EASE on a binary matrix: B = I − P·diag(1/diag P), P = (XᵀX + λI)⁻¹, dense n × n. */
function trainEase(x: SparseRows, lambda: number): { items: number; weights: Float32Array } {
  const n = x.cols;
  const g = new Float64Array(n * n);
  for (let r = 0; r < x.rows; r++) {
    for (let a = x.indptr[r]!; a < x.indptr[r + 1]!; a++) {
      for (let b = x.indptr[r]!; b < x.indptr[r + 1]!; b++) g[x.indices[a]! * n + x.indices[b]!]!++;
    }
  }
  for (let i = 0; i < n; i++) g[i * n + i]! += lambda;
  const p = invertSpd(g, n);
  const weights = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (i !== j) weights[i * n + j] = -p[i * n + j]! / p[j * n + j]!;
  }
  return { items: n, weights };
}
