import { Packr } from "msgpackr";
import type { AlsParams } from "../../src/wire/als.js";
import type { ClosedForm } from "./closedForm.js";
import type { Model } from "./model.js";

/**
 * A model as it is stored in PostgreSQL for the other processes (CLUSTER=1): a small msgpack header (settings,
 * sizes, the external id of each item in the trainer's numbering), then the arrays as raw bytes, each at an
 * offset that is a multiple of 8. Raw bytes, not msgpack, because they are most of it (tens of MB for a large
 * organisation) and are copied, not encoded. User vectors are not stored: a process that loads the model folds
 * every user in from its own history (translateModel.ts says why). Nor are the neighbour lists: at 100,000 items
 * they are 40 MB against 8 MB for all the rest, and rebuilding them from the vectors took 3 s of a 28 s training
 * (measured on 100,000 items, 30,000 users), done in the loading process's training thread.
 */
export interface StoredModel {
  params: AlsParams;
  /** Item i of the trainer's numbering is `names[i]`; itemCount is names.length. */
  names: string[];
  /** Interactions it was trained on (the scheduler's trainedOn). */
  interactions: number;
  trainedAt: number;
  trainingMs: number;
  itemCodes: Int8Array;
  itemScales: Float32Array;
  cosineScales: Float32Array;
  itemOfRow: Int32Array;
  itemGram: Float64Array;
  ivf: Model["ivf"];
  closedForm: ClosedForm | undefined;
}

const FORMAT = 1;
const packr = new Packr({ useRecords: false, moreTypes: false });

type Typed = Int8Array | Int32Array | Uint32Array | Float32Array | Float64Array;
const KINDS = { i8: Int8Array, i32: Int32Array, u32: Uint32Array, f32: Float32Array, f64: Float64Array } as const;
type Kind = keyof typeof KINDS;

interface Header {
  format: number;
  params: AlsParams;
  names: string[];
  interactions: number;
  trainedAt: number;
  trainingMs: number;
  ivfCells: number | null;
  closedForm: { form: "primal" | "dual"; lambda: number; items: number; users: number } | null;
  /** Each array's name, element type and length, in the order their bytes follow. */
  arrays: [string, Kind, number][];
}

function kindOf(a: Typed): Kind {
  if (a instanceof Int8Array) return "i8";
  if (a instanceof Int32Array) return "i32";
  if (a instanceof Uint32Array) return "u32";
  if (a instanceof Float32Array) return "f32";
  return "f64";
}

function arraysOf(m: StoredModel): [string, Typed][] {
  const out: [string, Typed][] = [
    ["itemCodes", m.itemCodes],
    ["itemScales", m.itemScales],
    ["cosineScales", m.cosineScales],
    ["itemOfRow", m.itemOfRow],
    ["itemGram", m.itemGram],
  ];
  if (m.ivf) out.push(["centroids", m.ivf.centroids], ["offsets", m.ivf.offsets]);
  const c = m.closedForm;
  if (c?.form === "primal") out.push(["weights", c.weights]);
  if (c?.form === "dual") {
    out.push(["inverse", c.inverse], ["diagonal", c.diagonal], ["userIndptr", c.byUser.indptr], ["userIndices", c.byUser.indices]);
    out.push(["itemIndptr", c.byItem.indptr], ["itemIndices", c.byItem.indices]);
  }
  return out;
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The model trained on items named `names` (by the trainer's numbering), as bytes to store. */
export function encodeModel(m: StoredModel): Uint8Array {
  const arrays = arraysOf(m);
  const c = m.closedForm;
  const header: Header = {
    format: FORMAT,
    params: m.params,
    names: m.names,
    interactions: m.interactions,
    trainedAt: m.trainedAt,
    trainingMs: m.trainingMs,
    ivfCells: m.ivf?.cells ?? null,
    closedForm: c ? { form: c.form, lambda: c.lambda, items: c.items, users: c.form === "dual" ? c.users : 0 } : null,
    arrays: arrays.map(([name, a]) => [name, kindOf(a), a.length]),
  };
  const head = packr.pack(header);
  let size = align8(4 + head.length);
  for (const [, a] of arrays) size += align8(a.byteLength);
  const out = new Uint8Array(size);
  new DataView(out.buffer).setUint32(0, head.length, true);
  out.set(head, 4);
  let at = align8(4 + head.length);
  for (const [, a] of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += align8(a.byteLength);
  }
  return out;
}

/** The header alone: what the loading thread needs to number the items its own way before the arrays are read. */
export function readHeader(bytes: Uint8Array): Header {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (8 + length > bytes.byteLength) throw new Error(`a stored model's header of ${length} bytes overruns its ${bytes.byteLength} bytes`);
  const header = packr.unpack(bytes.subarray(4, 4 + length)) as Header;
  if (header.format !== FORMAT) throw new Error(`a stored model has format ${header.format}; this build reads ${FORMAT}`);
  return header;
}

/** The whole model back, its arrays copied out of `bytes` (so that they are aligned and `bytes` can go). */
export function decodeModel(bytes: Uint8Array): StoredModel {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const h = readHeader(bytes);
  const arrays = new Map<string, Typed>();
  let at = align8(4 + length);
  for (const [name, kind, n] of h.arrays) {
    const Type = KINDS[kind];
    const byteLength = n * Type.BYTES_PER_ELEMENT;
    if (at + byteLength > bytes.byteLength) throw new Error(`a stored model's array ${name} overruns its bytes`);
    const copy = new Uint8Array(byteLength);
    copy.set(bytes.subarray(at, at + byteLength));
    arrays.set(name, new Type(copy.buffer));
    at += align8(byteLength);
  }
  const get = <T extends Typed>(name: string): T => {
    const a = arrays.get(name);
    if (!a) throw new Error(`a stored model lacks its array ${name}`);
    return a as T;
  };
  const c = h.closedForm;
  let closedForm: ClosedForm | undefined;
  if (c?.form === "primal") closedForm = { form: "primal", lambda: c.lambda, items: c.items, weights: get("weights") };
  if (c?.form === "dual")
    closedForm = {
      form: "dual",
      lambda: c.lambda,
      items: c.items,
      users: c.users,
      inverse: get("inverse"),
      diagonal: get("diagonal"),
      byUser: { indptr: get("userIndptr"), indices: get("userIndices") },
      byItem: { indptr: get("itemIndptr"), indices: get("itemIndices") },
    };
  return {
    params: h.params,
    names: h.names,
    interactions: h.interactions,
    trainedAt: h.trainedAt,
    trainingMs: h.trainingMs,
    itemCodes: get("itemCodes"),
    itemScales: get("itemScales"),
    cosineScales: get("cosineScales"),
    itemOfRow: get("itemOfRow"),
    itemGram: get("itemGram"),
    ivf: h.ivfCells === null ? undefined : { cells: h.ivfCells, centroids: get("centroids"), offsets: get("offsets") },
    closedForm,
  };
}
