import { describe, expect, it } from "vitest";
import { RowStore } from "../../../workers/index/rowStore.js";
import { SnapshotReader, SnapshotWriter } from "../../../workers/index/snapshotBytes.js";

function row(store: RowStore, r: number): number[][] {
  const out: number[][] = [];
  for (let k = store.start(r); k < store.start(r) + store.size(r); k++) {
    out.push([store.cols.key[k]!, store.cols.value[k]!, store.cols.time[k] ?? -1, store.cols.kind[k] ?? -1]);
  }
  return out;
}

/** Rows of different lengths pushed in an interleaved order, as events of many users arrive. */
function filled(timed: boolean, rows: number, maxRow: number): { store: RowStore; expected: number[][][] } {
  const store = new RowStore(maxRow, { value: Float32Array, timed });
  const expected: number[][][] = Array.from({ length: rows }, () => []);
  for (let n = 0; n < 200; n++) {
    for (let r = 0; r < rows; r++) {
      if (n >= (r % 50) * 4) continue;
      store.push(r, r * 1000 + n, n / 2, timed ? 10_000 + n : 0, timed ? 1 + (n % 2) : 0);
      expected[r]!.push([r * 1000 + n, n / 2, timed ? 10_000 + n : -1, timed ? 1 + (n % 2) : -1]);
    }
  }
  for (const e of expected) if (e.length > maxRow) e.splice(0, e.length - maxRow);
  return { store, expected };
}

/** The store written into a snapshot and read back into a new one. */
function restored(store: RowStore, maxRow: number, timed: boolean): RowStore {
  const w = new SnapshotWriter();
  store.snapshotTo(w);
  const copy = w.copy();
  let step = copy.next();
  while (!step.done) step = copy.next();
  const back = new RowStore(maxRow, { value: Float32Array, timed });
  back.restoreFrom(SnapshotReader.of(Buffer.concat(step.value.parts)));
  return back;
}

describe("RowStore", () => {
  it("restores from a snapshot with room to grow: rows that grow afterwards move within the restored slab, which is not copied", () => {
    const { store, expected } = filled(true, 3_000, 1_000);
    store.trim(); // full, as after a load: the next row that grows needs more slab
    const back = restored(store, 1_000, true);
    for (let r = 0; r < 3_000; r += 37) expect(row(back, r)).toEqual(expected[r]);
    const slab = back.cols;
    for (let r = 0; r < 3_000; r += 37) {
      back.push(r, 900_000 + r, 0.5, 1, 1);
      expected[r]!.push([900_000 + r, 0.5, 1, 1]);
      if (expected[r]!.length > 1_000) expected[r]!.splice(0, 250);
    }
    expect(back.cols).toBe(slab);
    for (let r = 0; r < 3_000; r += 37) expect(row(back, r)).toEqual(expected[r]);
  });

  it("keeps every row's entries in order through moves, slab growth and compaction", () => {
    const { store, expected } = filled(true, 3_000, 1_000);
    for (let r = 0; r < 3_000; r += 37) expect(row(store, r)).toEqual(expected[r]);
  });

  it("keeps only key and value when made without times and kinds, in less memory", () => {
    const timed = filled(true, 3_000, 1_000).store;
    const { store, expected } = filled(false, 3_000, 1_000);
    for (let r = 0; r < 3_000; r += 37) expect(row(store, r)).toEqual(expected[r]);
    expect(store.bytes).toBeLessThan(timed.bytes * 0.7);
  });

  it("gives back the room kept for growth when trimmed, and still grows rows afterwards", () => {
    const { store, expected } = filled(true, 3_000, 1_000);
    const before = store.bytes;
    store.trim();
    expect(store.bytes).toBeLessThan(before * 0.7);
    for (let r = 0; r < 3_000; r += 37) expect(row(store, r)).toEqual(expected[r]);
    for (let r = 0; r < 3_000; r += 7) {
      store.push(r, -r - 1, 9, 99, 2);
      expected[r]!.push([-r - 1, 9, 99, 2]);
    }
    for (let r = 0; r < 3_000; r += 7) expect(row(store, r)).toEqual(expected[r]);
  });

  it("stores values in the column type it was made with (whole weights in one byte, counts in two)", () => {
    const weights = new RowStore(8, { value: Int8Array, timed: true });
    for (const w of [-2, 0, 5]) weights.push(0, w + 10, w, 1, 1);
    expect(row(weights, 0).map(([, v]) => v)).toEqual([-2, 0, 5]);
    expect(weights.cols.value.BYTES_PER_ELEMENT).toBe(1);
    const counts = new RowStore(8, { value: Uint16Array, timed: false });
    counts.push(3, 7, 65_535);
    expect(row(counts, 3)).toEqual([[7, 65_535, -1, -1]]);
  });

  it("drops a full row's oldest quarter to make room", () => {
    const store = new RowStore(8, { value: Int8Array, timed: true });
    for (let n = 0; n < 9; n++) store.push(0, n, 1, n, 1);
    expect(row(store, 0).map(([key]) => key)).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });
});
