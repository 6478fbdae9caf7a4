import { Packr } from "msgpackr";
import type { AlsParams } from "../../src/wire/als.js";
import type { ClosedForm } from "./ease.js";
import { QUERY_MAX_ITEMS, type ItemItem } from "./itemItem.js";
import type { Model } from "./model.js";

/**
 * A model as it is stored in PostgreSQL for the other processes (CLUSTER=1): a small msgpack header (settings,
 * sizes), then the arrays as raw bytes, each at an offset that is a multiple of 8, the external id of each item
 * (in the trainer's numbering) among them. Raw bytes, not msgpack, because they are most of it (tens of MB for a large
 * organisation) and are copied, not encoded. User vectors are not stored: a process that loads the model folds
 * every user in from its own history (translateModel.ts says why). Nor are the neighbour lists: they are several
 * times the size of all the rest, and rebuilding them from the vectors is a small part of a training, done in the
 * loading process's training thread (docs/recommender.md, "Figures behind the constants").
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
  itemItem: ItemItem | undefined;
  /** Stored only beside item-item rows: a model without vectors cannot rebuild them. */
  neighbours: Model["neighbours"];
}

const FORMAT = 2;
const packr = new Packr({ useRecords: false, moreTypes: false });

/** What a loading process reads back: the model without its items' names (read on their own: storedNames). */
export type DecodedModel = Omit<StoredModel, "names">;

type Typed = Uint8Array | Int8Array | Int32Array | Uint32Array | Float32Array | Float64Array;
const KINDS = { u8: Uint8Array, i8: Int8Array, i32: Int32Array, u32: Uint32Array, f32: Float32Array, f64: Float64Array } as const;
type Kind = keyof typeof KINDS;

export interface Header {
  format: number;
  params: AlsParams;
  interactions: number;
  trainedAt: number;
  trainingMs: number;
  ivfCells: number | null;
  closedForm: { form: "primal" | "dual"; lambda: number; items: number; users: number } | null;
  /** The item-item rows' item count, when the model has them. */
  itemItem: number | null;
  /** Their queries' length (ItemItem.queryMax); absent in models stored before it was: QUERY_MAX_ITEMS. */
  itemItemQueryMax?: number;
  /** Slots per item of the stored neighbour lists, when they are stored. */
  neighboursPerItem: number | null;
  /** Each array's name, element type and length, in the order their bytes follow. */
  arrays: [string, Kind, number][];
}

function kindOf(a: Typed): Kind {
  if (a instanceof Uint8Array) return "u8";
  if (a instanceof Int8Array) return "i8";
  if (a instanceof Int32Array) return "i32";
  if (a instanceof Uint32Array) return "u32";
  if (a instanceof Float32Array) return "f32";
  return "f64";
}

/**
 * The names as one UTF-8 run and where each ends: the loading thread reads them a few at a time between requests,
 * where a msgpack array of them is unpacked in one go and holds the thread for as long.
 */
function namesOf(names: string[]): [string, Typed][] {
  const encoder = new TextEncoder();
  let text = new Uint8Array(names.length * 16);
  const ends = new Int32Array(names.length);
  let at = 0;
  names.forEach((name, t) => {
    if (text.length - at < name.length * 3) {
      const grown = new Uint8Array(Math.max(text.length * 2, at + name.length * 3));
      grown.set(text.subarray(0, at));
      text = grown;
    }
    at += encoder.encodeInto(name, text.subarray(at)).written;
    ends[t] = at;
  });
  return [
    ["nameText", text.slice(0, at)],
    ["nameEnds", ends],
  ];
}

function arraysOf(m: StoredModel): [string, Typed][] {
  const out: [string, Typed][] = [
    ...namesOf(m.names),
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
  const r = m.itemItem;
  if (r) out.push(["itemItemRowStart", r.rowStart], ["itemItemNeighbours", r.neighbours], ["itemItemWeights", r.weights]);
  // Stored for a model of vectors too: its lists come from the training's co-occurrence rows, which are not stored.
  if (m.neighbours) out.push(["neighbourSlots", m.neighbours.slots]);
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
    interactions: m.interactions,
    trainedAt: m.trainedAt,
    trainingMs: m.trainingMs,
    ivfCells: m.ivf?.cells ?? null,
    closedForm: c ? { form: c.form, lambda: c.lambda, items: c.items, users: c.form === "dual" ? c.users : 0 } : null,
    itemItem: m.itemItem?.items ?? null,
    itemItemQueryMax: m.itemItem?.queryMax,
    neighboursPerItem: m.neighbours ? m.neighbours.perItem : null,
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

/** The header alone (settings, sizes, where each array is): a few hundred bytes. */
export function readHeader(bytes: Uint8Array): Header {
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  if (8 + length > bytes.byteLength) throw new Error(`a stored model's header of ${length} bytes overruns its ${bytes.byteLength} bytes`);
  const header = packr.unpack(bytes.subarray(4, 4 + length)) as Header;
  if (header.format !== FORMAT) throw new Error(`a stored model has format ${header.format}; this build reads ${FORMAT}`);
  return header;
}

/** Where each array's bytes are in `bytes`. */
function locate(bytes: Uint8Array, h: Header): Map<string, { kind: Kind; at: number; byteLength: number }> {
  const out = new Map<string, { kind: Kind; at: number; byteLength: number }>();
  let at = align8(4 + new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true));
  for (const [name, kind, n] of h.arrays) {
    const byteLength = n * KINDS[kind].BYTES_PER_ELEMENT;
    if (at + byteLength > bytes.byteLength) throw new Error(`a stored model's array ${name} overruns its bytes`);
    out.set(name, { kind, at, byteLength });
    at += align8(byteLength);
  }
  return out;
}

/** The trainer's item t's id, read from the stored bytes in place, one name at a time. */
export interface StoredNames {
  count: number;
  name(t: number): string;
}

export function storedNames(bytes: Uint8Array, h: Header = readHeader(bytes)): StoredNames {
  const where = locate(bytes, h);
  const text = where.get("nameText");
  const ends = where.get("nameEnds");
  if (!text || !ends) throw new Error("a stored model lacks its items' names");
  const run = bytes.subarray(text.at, text.at + text.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset + ends.at, ends.byteLength);
  const decoder = new TextDecoder();
  const end = (t: number): number => (t < 0 ? 0 : view.getInt32(t * 4, true));
  return { count: ends.byteLength / 4, name: (t) => decoder.decode(run.subarray(end(t - 1), end(t))) };
}

/** The whole model but its names, its arrays copied out of `bytes` (so that they are aligned and `bytes` can go). */
export function decodeModel(bytes: Uint8Array): DecodedModel {
  const h = readHeader(bytes);
  const arrays = new Map<string, Typed>();
  for (const [name, { kind, at, byteLength }] of locate(bytes, h)) {
    if (name === "nameText" || name === "nameEnds") continue;
    const copy = new Uint8Array(byteLength);
    copy.set(bytes.subarray(at, at + byteLength));
    arrays.set(name, new KINDS[kind](copy.buffer));
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
    itemItem:
      h.itemItem === null
        ? undefined
        : {
            items: h.itemItem,
            queryMax: h.itemItemQueryMax ?? QUERY_MAX_ITEMS,
            rowStart: get("itemItemRowStart"),
            neighbours: get("itemItemNeighbours"),
            weights: get("itemItemWeights"),
          },
    neighbours: h.neighboursPerItem === null ? undefined : { perItem: h.neighboursPerItem, slots: get("neighbourSlots") },
  };
}
