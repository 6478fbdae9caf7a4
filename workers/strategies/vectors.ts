import { bestCells } from "../training/ivf.js";
import type { Model } from "../training/model.js";
import { TopK } from "./topK.js";

const FIRST_PROBES = 8;

/**
 * The `want` items whose vectors (model.itemVectors for a user's taste, model.itemUnit for item similarity)
 * score highest against q, among those `accept` lets through. Small catalogs are scanned whole; large ones probe
 * the IVF cells nearest to q, widening the probe until enough items pass `accept` (strict filters).
 */
export function searchVectors(
  model: Model, vectors: Float32Array, q: Float32Array | Float64Array, want: number, accept: (item: number) => boolean,
): TopK {
  const f = model.params.factors;
  const top = new TopK(want);
  const scoreItem = (i: number) => {
    let s = 0;
    const off = i * f;
    for (let k = 0; k < f; k++) s += vectors[off + k]! * q[k]!;
    if (top.wouldTake(s, i) && accept(i)) top.offer(s, i);
  };
  const ivf = model.ivf;
  if (!ivf) {
    for (let i = 0; i < model.itemCount; i++) scoreItem(i);
    return top;
  }
  const order = bestCells(ivf, q, f, ivf.cells);
  let scanned = 0;
  for (let probes = FIRST_PROBES; scanned < order.length; probes *= 4) {
    for (; scanned < Math.min(probes, order.length); scanned++) {
      const c = order[scanned]!;
      for (let m = ivf.offsets[c]!; m < ivf.offsets[c + 1]!; m++) scoreItem(ivf.members[m]!);
    }
    if (top.size >= want) break;
  }
  return top;
}

/** The unit vector of item i, or undefined when the model has none for it (new, or never interacted with). */
export function unitVector(model: Model, item: number): Float32Array | undefined {
  if (item < 0 || item >= model.itemCount) return undefined;
  const f = model.params.factors;
  const v = model.itemUnit.subarray(item * f, item * f + f);
  return v[0] === 0 && v[1] === 0 ? undefined : v;
}
