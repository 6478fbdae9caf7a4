// Fitting EASE, with λ chosen on validation splits: the fitted form, and how a query is scored by it, are workers/model/ease.ts.
import type { SparseRows } from "./als.js";
import { transpose } from "./als.js";
import { closedFormScores, dualScores, type ClosedForm, type DualForm, type PrimalForm } from "../model/ease.js";
import { invertSpd } from "../model/linalg.js";
import { seededRandom } from "../model/seededRandom.js";

/**
 * Sizes where a fit takes seconds on one core and serving stays within a millisecond or two (a fit's cost grows
 * with the cube of the side, so a little past them it takes several times as long; docs/recommender.md gives the
 * times): a primal B is n² floats and a query reads |query| rows of it; a dual K is m² floats, and a new query
 * costs m² multiply-adds. Choosing λ takes about eight fits.
 */
export const PRIMAL_MAX_ITEMS = 2_000;
export const DUAL_MAX_USERS = 1_500;

/** The λ grid searched on validation splits, from 300 (published sets land between 100 and 1,000). */
const LAMBDAS = [30, 100, 200, 300, 500, 1_000, 2_000, 5_000];
const START_LAMBDA = 3;
/** Two splits: with one, the best λ moves with the seed, and a poor draw costs accuracy on test. */
const VALIDATION_FOLDS = 2;
/** Share of each validation user's items held out, users with at least MIN_VALIDATION_ITEMS. */
const VALIDATION_SHARE = 0.2;
const MIN_VALIDATION_ITEMS = 5;
const VALIDATION_USERS_MAX = 1_000;
const VALIDATION_K = 10;

export function closedFormFits(users: number, items: number): "primal" | "dual" | undefined {
  if (users <= DUAL_MAX_USERS && users < items) return "dual";
  if (items <= PRIMAL_MAX_ITEMS) return "primal";
  return users <= DUAL_MAX_USERS ? "dual" : undefined;
}

/**
 * Fits EASE on the binary pattern of `matrix` with λ chosen on validation splits of it (in each, users with enough
 * items have a fifth of them held out; the λ whose fits rank them best by nDCG@10, averaged over the splits, wins),
 * or undefined where the organisation is too large for a closed form.
 */
export function trainClosedForm(matrix: SparseRows, seed: number, log?: (s: string) => void): ClosedForm | undefined {
  const binary = binaryPattern(matrix);
  const form = closedFormFits(binary.rows, binary.cols);
  if (!form) return undefined;
  const folds = Array.from({ length: VALIDATION_FOLDS }, (_, k) => validationSplit(binary, seed + k));
  const scored = new Map<number, number>();
  const score = (k: number): number => {
    let s = scored.get(k);
    if (s === undefined) {
      s = folds.reduce((sum, fold) => sum + validationScore(fitForm(fold.fit, LAMBDAS[k]!, form), fold.fit, fold.heldOut), 0) / folds.length;
      scored.set(k, s);
      log?.(`closed form λ ${LAMBDAS[k]}: validation nDCG@10 ${s.toFixed(4)}`);
    }
    return s;
  };
  return fitForm(binary, LAMBDAS[bestOnGrid(score)]!, form);
}

/**
 * Climbs the λ grid from its middle towards the better neighbour while one is better: the validation score is
 * unimodal in λ on every set measured, and each step costs a fit per split.
 */
function bestOnGrid(score: (k: number) => number): number {
  let k = START_LAMBDA;
  for (;;) {
    const here = score(k);
    const down = k > 0 ? score(k - 1) : -Infinity;
    const up = k < LAMBDAS.length - 1 ? score(k + 1) : -Infinity;
    if (here >= down && here >= up) return k;
    const next = down > up ? k - 1 : k + 1;
    if ((next < k && k - 1 < 0) || next >= LAMBDAS.length) return k;
    k = next;
  }
}

export function fitForm(binary: SparseRows, lambda: number, form: "primal" | "dual"): ClosedForm {
  return form === "primal" ? fitPrimal(binary, lambda) : fitDual(binary, lambda);
}

function fitPrimal(x: SparseRows, lambda: number): PrimalForm {
  const n = x.cols;
  const byItem = transpose(x);
  const g = new Float64Array(n * n);
  for (let u = 0; u < x.rows; u++) {
    for (let a = x.indptr[u]!; a < x.indptr[u + 1]!; a++) {
      const row = x.indices[a]! * n;
      for (let b = x.indptr[u]!; b < x.indptr[u + 1]!; b++) g[row + x.indices[b]!]!++;
    }
  }
  for (let i = 0; i < n; i++) g[i * n + i]! += lambda;
  const p = invertSpd(g, n);
  const weights = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    // An item nobody has carries no evidence: its row stays 0 (P's row is λ⁻¹·e_i there).
    if (byItem.indptr[i] === byItem.indptr[i + 1]) continue;
    for (let j = 0; j < n; j++) if (i !== j) weights[i * n + j] = -p[i * n + j]! / p[j * n + j]!;
  }
  return { form: "primal", lambda, items: n, weights };
}

function fitDual(x: SparseRows, lambda: number): DualForm {
  const m = x.rows;
  const byItem = transpose(x);
  const g = new Float64Array(m * m);
  // Scaled by 1/λ (K = (XXᵀ/λ + I)⁻¹), so that K's entries and the scores below need no λ.
  const w = 1 / lambda;
  for (let j = 0; j < byItem.rows; j++) {
    for (let a = byItem.indptr[j]!; a < byItem.indptr[j + 1]!; a++) {
      const row = byItem.indices[a]! * m;
      for (let b = byItem.indptr[j]!; b < byItem.indptr[j + 1]!; b++) g[row + byItem.indices[b]!]! += w;
    }
  }
  for (let u = 0; u < m; u++) g[u * m + u]! += 1;
  const k = invertSpd(g, m);
  const diagonal = new Float32Array(x.cols);
  for (let j = 0; j < x.cols; j++) {
    let quad = 0;
    for (let a = byItem.indptr[j]!; a < byItem.indptr[j + 1]!; a++) {
      const row = byItem.indices[a]! * m;
      for (let b = byItem.indptr[j]!; b < byItem.indptr[j + 1]!; b++) quad += k[row + byItem.indices[b]!]!;
    }
    diagonal[j] = byItem.indptr[j] === byItem.indptr[j + 1] ? 0 : 1 - quad / lambda;
  }
  return {
    form: "dual",
    lambda,
    items: x.cols,
    users: m,
    inverse: Float32Array.from(k),
    diagonal,
    byUser: { indptr: x.indptr, indices: x.indices },
    byItem: { indptr: byItem.indptr, indices: byItem.indices },
  };
}

/**
 * The binary pattern of a strength matrix, positive entries as 1, with only the rows that have one. Users with no
 * events yet (an organisation may upsert thousands before their events stream in) would otherwise be rows of the
 * dual form's users × users inverse, each step of the λ search paying for them. The dual form never refers to
 * a user from outside its fit (a query is scored from its items), so its own numbering of users is enough.
 */
export function binaryPattern(m: SparseRows): SparseRows {
  const indptr: number[] = [0];
  const indices = new Int32Array(m.indptr[m.rows]!);
  let n = 0;
  for (let r = 0; r < m.rows; r++) {
    for (let a = m.indptr[r]!; a < m.indptr[r + 1]!; a++) if (m.values[a]! > 0) indices[n++] = m.indices[a]!;
    if (n > indptr[indptr.length - 1]!) indptr.push(n);
  }
  return {
    rows: indptr.length - 1,
    cols: m.cols,
    indptr: Int32Array.from(indptr),
    indices: indices.slice(0, n),
    values: new Float32Array(n).fill(1),
  };
}

/** Holds out a seeded fifth of the items of up to VALIDATION_USERS_MAX users with enough of them. */
function validationSplit(x: SparseRows, seed: number): { fit: SparseRows; heldOut: Map<number, Set<number>> } {
  const random = seededRandom(seed);
  const candidates: number[] = [];
  for (let u = 0; u < x.rows; u++) if (x.indptr[u + 1]! - x.indptr[u]! >= MIN_VALIDATION_ITEMS) candidates.push(u);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
  }
  const heldOut = new Map<number, Set<number>>();
  for (const u of candidates.slice(0, VALIDATION_USERS_MAX)) {
    const row = x.indices.subarray(x.indptr[u]!, x.indptr[u + 1]!);
    const held = new Set<number>();
    while (held.size < Math.round(VALIDATION_SHARE * row.length)) held.add(row[Math.floor(random() * row.length)]!);
    heldOut.set(u, held);
  }
  const indptr = new Int32Array(x.rows + 1);
  const indices: number[] = [];
  for (let u = 0; u < x.rows; u++) {
    const held = heldOut.get(u);
    for (let a = x.indptr[u]!; a < x.indptr[u + 1]!; a++) if (!held?.has(x.indices[a]!)) indices.push(x.indices[a]!);
    indptr[u + 1] = indices.length;
  }
  return {
    fit: { rows: x.rows, cols: x.cols, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) },
    heldOut,
  };
}

/** Mean nDCG@10 of the held-out items among each validation user's unseen items. */
function validationScore(model: ClosedForm, fit: SparseRows, heldOut: Map<number, Set<number>>): number {
  const scores = new Float64Array(model.items);
  let sum = 0;
  for (const [u, held] of heldOut) {
    const items = fit.indices.subarray(fit.indptr[u]!, fit.indptr[u + 1]!);
    const ones = new Float64Array(items.length).fill(1);
    if (model.form === "dual") dualScores(model, trainedUserSide(model, u), items, ones, scores);
    else closedFormScores(model, items, ones, scores);
    for (const i of items) scores[i] = -Infinity;
    sum += ndcgOfTop(scores, held);
  }
  return heldOut.size === 0 ? 0 : sum / heldOut.size;
}

/** For a user of the fit, K·X·x_u/λ = e_u − K_u (since (XXᵀ/λ + I)·K = I): no m² product needed. */
function trainedUserSide(model: DualForm, u: number): Float64Array {
  const m = model.users;
  const a = new Float64Array(m);
  for (let v = 0; v < m; v++) a[v] = -model.inverse[u * m + v]!;
  a[u]! += 1;
  return a;
}

function ndcgOfTop(scores: Float64Array, relevant: Set<number>): number {
  const top: number[] = [];
  for (let j = 0; j < scores.length; j++) {
    if (scores[j] === -Infinity) continue;
    if (top.length < VALIDATION_K) top.push(j);
    else if (scores[j]! > scores[top[VALIDATION_K - 1]!]!) top[VALIDATION_K - 1] = j;
    else continue;
    top.sort((a, b) => scores[b]! - scores[a]!);
  }
  let dcg = 0;
  top.forEach((j, r) => relevant.has(j) && (dcg += 1 / Math.log2(r + 2)));
  let ideal = 0;
  for (let r = 0; r < Math.min(VALIDATION_K, relevant.size); r++) ideal += 1 / Math.log2(r + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}
