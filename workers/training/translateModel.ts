import type { ClosedForm, DualForm } from "../model/ease.js";
import type { ItemItem } from "../model/itemItem.js";
import { END, slotCosine, slotItem, slotOf, type NeighbourTable } from "../model/neighbourSlots.js";
import type { Model } from "../model/model.js";
import type { DecodedModel } from "../model/modelBytes.js";

/**
 * A model another process trained, in this process's numbering. Items and users are interned per process in the
 * order each saw them, so every array indexed by item, or holding items, is permuted: `local[t]` is this
 * process's number of the trainer's item t, or −1 for an item this process has not seen (left out of the
 * model: the caller waits for such items first, see recommender/sharedTraining.ts). The model covers this
 * process's items 0 .. itemCount−1 (the highest mapped one and below); those the trainer did not know have no
 * vector and no closed-form weights, as items interned after a training have none in the trainer's own. Its
 * neighbour lists are left to the caller to build from the translated vectors (modelBytes.ts says why).
 *
 * Users: every user's vector starts empty with the version −1, which no history has (versions count up from 0),
 * so each user is folded in from this process's own history on their first request (model.ts foldIn), about a
 * tenth of a millisecond once per user and model. That is ALS's own user step solved exactly against the final
 * item vectors (the trained ones are a half-step older), and it needs no user ids: the trainer's versions count
 * another process's history changes and could not say whether a user's history here is the one trained on.
 */
export function translateModel(stored: DecodedModel, local: Int32Array, users: number): Model {
  const f = stored.params.factors;
  let itemCount = 0;
  for (const a of local) if (a >= itemCount) itemCount = a + 1;
  const trainerOf = new Int32Array(itemCount).fill(-1);
  local.forEach((a, t) => a >= 0 && (trainerOf[a] = t));

  const rows = searchRows(stored, local, trainerOf);
  const itemCodes = new Int8Array(itemCount * f);
  const itemScales = new Float32Array(itemCount);
  const cosineScales = new Float32Array(itemCount);
  const rowOf = new Int32Array(itemCount);
  rows.itemOfRow.forEach((a, r) => {
    rowOf[a] = r;
    const from = rows.fromRow[r]!;
    if (from < 0) return;
    itemCodes.set(stored.itemCodes.subarray(from * f, from * f + f), r * f);
    itemScales[r] = stored.itemScales[from]!;
    cosineScales[r] = stored.cosineScales[from]!;
  });
  return {
    params: stored.params,
    itemCount,
    itemCodes,
    itemScales,
    cosineScales,
    rowOf,
    itemOfRow: rows.itemOfRow,
    userCount: users,
    userVectors: new Float32Array(users * f),
    userVersions: new Int32Array(users).fill(-1),
    itemGram: stored.itemGram,
    ivf: stored.ivf && { cells: stored.ivf.cells, centroids: stored.ivf.centroids, offsets: rows.offsets! },
    neighbours: stored.neighbours && translateNeighbours(stored.neighbours, local, trainerOf),
    closedForm: translateClosedForm(stored.closedForm, local, trainerOf),
    itemItem: stored.itemItem && translateItemItem(stored.itemItem, local, trainerOf),
    // Kept lists are per user of the process that trained; this one numbers its users otherwise.
    userTop: undefined,
    trainedAt: stored.trainedAt,
    trainingMs: stored.trainingMs,
  };
}

/**
 * The search order in local items: the trainer's rows in their order (IVF cells stay runs of rows, each cell's
 * offsets shrunk by the rows left out), then the local items the trainer did not know. `fromRow[r]`: the
 * trainer's row that row r copies, or −1.
 */
function searchRows(
  stored: DecodedModel,
  local: Int32Array,
  trainerOf: Int32Array,
): { itemOfRow: Int32Array; fromRow: Int32Array; offsets: Int32Array | undefined } {
  const n = trainerOf.length;
  const itemOfRow = new Int32Array(n);
  const fromRow = new Int32Array(n).fill(-1);
  const ivf = stored.ivf;
  const offsets = ivf ? new Int32Array(ivf.cells + 1) : undefined;
  let cell = 0;
  let r = 0;
  for (let from = 0; from < stored.itemOfRow.length; from++) {
    if (ivf && offsets) while (cell < ivf.cells && from >= ivf.offsets[cell + 1]!) offsets[++cell] = r;
    const a = local[stored.itemOfRow[from]!]!;
    if (a < 0) continue;
    itemOfRow[r] = a;
    fromRow[r++] = from;
  }
  if (ivf && offsets) while (cell < ivf.cells) offsets[++cell] = r;
  for (let a = 0; a < n; a++) if (trainerOf[a]! < 0) itemOfRow[r++] = a;
  return { itemOfRow, fromRow, offsets };
}

function translateClosedForm(c: ClosedForm | undefined, local: Int32Array, trainerOf: Int32Array): ClosedForm | undefined {
  if (!c) return undefined;
  const n = trainerOf.length;
  if (c.form === "dual") return translateDual(c, local, trainerOf);
  // Primal: B[a][b] = B_trainer[t(a)][t(b)], at most 2,000² weights (PRIMAL_MAX_ITEMS).
  const weights = new Float32Array(n * n);
  for (let a = 0; a < n; a++) {
    const t = trainerOf[a]!;
    if (t < 0) continue;
    const row = t * c.items;
    for (let b = 0; b < n; b++) if (trainerOf[b]! >= 0) weights[a * n + b] = c.weights[row + trainerOf[b]!]!;
  }
  return { form: "primal", lambda: c.lambda, items: n, weights };
}

/** Stored neighbour lists (beside item-item rows): local item a's list is t(a)'s, renumbered (unknown ones left out). */
function translateNeighbours(table: NeighbourTable, local: Int32Array, trainerOf: Int32Array): NeighbourTable {
  const { perItem } = table;
  const n = trainerOf.length;
  const stored = table.slots.length / perItem;
  const slots = new Uint32Array(n * perItem).fill(END);
  for (let a = 0; a < n; a++) {
    const t = trainerOf[a]!;
    if (t < 0 || t >= stored) continue;
    let k = 0;
    for (let e = t * perItem; e < (t + 1) * perItem && table.slots[e] !== END; e++) {
      const b = local[slotItem(table.slots[e]!)]!;
      if (b >= 0) slots[a * perItem + k++] = slotOf(b, slotCosine(table.slots[e]!));
    }
  }
  return { perItem, slots };
}

/** Item-item rows: local item a's row is the trainer's row of t(a), its neighbours renumbered (unknown ones left out). */
function translateItemItem(r: ItemItem, local: Int32Array, trainerOf: Int32Array): ItemItem {
  const n = trainerOf.length;
  const rowStart = new Int32Array(n + 1);
  const neighbours = new Int32Array(r.neighbours.length);
  const weights = new Float32Array(r.weights.length);
  let k = 0;
  for (let a = 0; a < n; a++) {
    const t = trainerOf[a]!;
    if (t >= 0 && t < r.items) {
      for (let e = r.rowStart[t]!; e < r.rowStart[t + 1]!; e++) {
        const b = local[r.neighbours[e]!]!;
        if (b < 0) continue;
        neighbours[k] = b;
        weights[k++] = r.weights[e]!;
      }
    }
    rowStart[a + 1] = k;
  }
  return { items: n, queryMax: r.queryMax, rowStart, neighbours: neighbours.slice(0, k), weights: weights.slice(0, k) };
}

/** Dual: K and the users' numbering are the trainer's own (no user outside it is referred to); items are renumbered. */
function translateDual(c: DualForm, local: Int32Array, trainerOf: Int32Array): DualForm {
  const n = trainerOf.length;
  const diagonal = new Float32Array(n);
  const itemIndptr = new Int32Array(n + 1);
  for (let a = 0; a < n; a++) {
    const t = trainerOf[a]!;
    if (t >= 0) diagonal[a] = c.diagonal[t]!;
    itemIndptr[a + 1] = itemIndptr[a]! + (t < 0 ? 0 : c.byItem.indptr[t + 1]! - c.byItem.indptr[t]!);
  }
  const itemIndices = new Int32Array(itemIndptr[n]!);
  for (let a = 0; a < n; a++) {
    const t = trainerOf[a]!;
    if (t >= 0) itemIndices.set(c.byItem.indices.subarray(c.byItem.indptr[t]!, c.byItem.indptr[t + 1]!), itemIndptr[a]!);
  }
  const userIndptr = new Int32Array(c.users + 1);
  const userIndices = new Int32Array(c.byUser.indices.length);
  let k = 0;
  for (let u = 0; u < c.users; u++) {
    for (let e = c.byUser.indptr[u]!; e < c.byUser.indptr[u + 1]!; e++) {
      const a = local[c.byUser.indices[e]!]!;
      if (a >= 0) userIndices[k++] = a;
    }
    userIndptr[u + 1] = k;
  }
  return {
    form: "dual",
    lambda: c.lambda,
    items: n,
    users: c.users,
    inverse: c.inverse,
    diagonal,
    byUser: { indptr: userIndptr, indices: userIndices.slice(0, k) },
    byItem: { indptr: itemIndptr, indices: itemIndices },
  };
}
