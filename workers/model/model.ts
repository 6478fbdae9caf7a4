import type { AlsParams } from "../../src/wire/als.js";
import type { ClosedForm } from "./ease.js";
import type { ItemItem } from "./itemItem.js";
import type { Ivf } from "./ivf.js";
import type { NeighbourTable } from "./neighbourSlots.js";
import type { UserTop } from "./userTop.js";
import { choleskySolve } from "./linalg.js";

/** ALS's confidence in an interaction of this strength: training weighs by it, and fold-in solves with the same weights. */
export function confidence(strength: number, alpha: number): number {
  return 1 + alpha * Math.log1p(strength);
}

/** What training produces for one organisation; swapped into its index whole. */
export interface Model {
  params: AlsParams;
  /** Items 0 .. itemCount−1 of the catalog's interning had a vector when the model was trained. */
  itemCount: number;
  /**
   * Item vectors quantized to int8, row by row in search order (IVF cell by cell), so that a probed cell is one
   * short sequential read: row r's vector is itemCodes[r·f .. r·f+f) × itemScales[r]. Item i is row rowOf[i],
   * row r is item itemOfRow[r].
   */
  itemCodes: Int8Array;
  itemScales: Float32Array;
  /** Turns a codes·query dot into a cosine (1/|codes| of the row); 0: the item has no learned vector. */
  cosineScales: Float32Array;
  rowOf: Int32Array;
  itemOfRow: Int32Array;
  userCount: number;
  /** Trained user vectors; serving overwrites a user's row with their fold-in once their history moves on. */
  userVectors: Float32Array;
  /** The history version each row of userVectors stands for (training time, then the last fold-in). */
  userVersions: Int32Array;
  /** YᵀY of the item vectors, the shared part of every fold-in solve. */
  itemGram: Float64Array;
  ivf: Ivf | undefined;
  /** Each item's nearest items by these vectors (see neighbourTable); undefined for very large catalogs. */
  neighbours: NeighbourTable | undefined;
  /** EASE, where the organisation is small enough for a closed form: `personalized` ranks by it then. */
  closedForm: ClosedForm | undefined;
  /** Normalised item-item co-occurrence, where no closed form fits: `personalized` ranks by it then. */
  itemItem: ItemItem | undefined;
  /** Each user's best items by itemItem blended with a user-user term, as trained (userTop.ts); undefined for other models and translated ones. */
  userTop: UserTop | undefined;
  trainedAt: number;
  trainingMs: number;
}

/** False for a model of item-item rows only (large catalogs): it has no item or user vectors. */
export function hasVectors(model: Model): boolean {
  return model.itemCodes.length > 0;
}

/** Fold-in's working space (one thread folds in one user at a time): the f×f system and one item's decoded vector. */
let system = new Float64Array(0);
let decoded = new Float64Array(0);

/**
 * A user's vector from their interactions against the model's fixed item vectors: the ALS user step solved
 * exactly (Cholesky), about a tenth of a millisecond for 64 factors. This is how new events change a user's
 * recommendations at once, without retraining. Only the answer is allocated: the system and each item's
 * decoded vector live in buffers the thread reuses (a fresh 512-byte vector per item of the user's record,
 * each with its own ArrayBuffer, was most of what a burst of fold-ins left for the collector).
 */
export function foldIn(model: Model, items: ArrayLike<number>, strengths: ArrayLike<number>): Float64Array | undefined {
  const f = model.params.factors;
  if (system.length !== f * f) system = new Float64Array(f * f);
  if (decoded.length !== f) decoded = new Float64Array(f);
  const a = system;
  a.set(model.itemGram);
  for (let k = 0; k < f; k++) a[k * f + k]! += model.params.regularization;
  const b = new Float64Array(f);
  let used = 0;
  for (let j = 0; j < items.length; j++) {
    const item = items[j]!;
    if (item >= model.itemCount || strengths[j]! <= 0) continue;
    used++;
    const c = confidence(strengths[j]!, model.params.alpha);
    const y = itemVectorInto(model, model.rowOf[item]!, decoded);
    for (let r = 0; r < f; r++) {
      const yr = y[r]!;
      b[r]! += c * yr;
      const w = (c - 1) * yr;
      for (let s = 0; s <= r; s++) a[r * f + s]! += w * y[s]!;
    }
  }
  if (used === 0) return undefined;
  for (let r = 0; r < f; r++) for (let s = r + 1; s < f; s++) a[r * f + s] = a[s * f + r]!;
  choleskySolve(a, b, f);
  return b;
}

function itemVectorInto(model: Model, row: number, out: Float64Array): Float64Array {
  const f = model.params.factors;
  const scale = model.itemScales[row]!;
  for (let k = 0; k < f; k++) out[k] = model.itemCodes[row * f + k]! * scale;
  return out;
}
