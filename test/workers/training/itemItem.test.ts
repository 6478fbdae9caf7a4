import { describe, expect, it } from "vitest";
import type { SparseRows } from "../../../workers/training/als.js";
import { fitItemItem, type ItemItemParams } from "../../../workers/training/itemItem.js";
import { itemItemScores } from "../../../workers/model/itemItem.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { END, slotCosine, slotItem } from "../../../workers/model/neighbourSlots.js";

/** A binary users × items matrix, each pair present with a probability that falls with the item's number. */
function skewedBinary(users: number, items: number, seed: number): SparseRows {
  const random = seededRandom(seed);
  const indptr = new Int32Array(users + 1);
  const indices: number[] = [];
  for (let u = 0; u < users; u++) {
    for (let i = 0; i < items; i++) if (random() < 0.4 / (1 + i / 5)) indices.push(i);
    indptr[u + 1] = indices.length;
  }
  return { rows: users, cols: items, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
}

/** S_ij = d_i^−β·d_j^−δ·Σ_u x_ui·x_uj·d_u^−γ straight from the definition (0 on the diagonal: an item is not its own neighbour). */
function byDefinition(x: SparseRows, p: ItemItemParams): number[][] {
  const n = x.cols;
  const itemDegree = new Array<number>(n).fill(0);
  for (const i of x.indices) itemDegree[i]!++;
  const s = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let u = 0; u < x.rows; u++) {
    const row = Array.from(x.indices.subarray(x.indptr[u]!, x.indptr[u + 1]!));
    for (const i of row) for (const j of row) if (i !== j) s[i]![j]! += row.length ** -p.gamma;
  }
  return s.map((row, i) => row.map((c, j) => (c === 0 ? 0 : c * itemDegree[i]! ** -p.beta * itemDegree[j]! ** -p.delta)));
}

const whole: ItemItemParams = { beta: 0.8, gamma: 1, delta: 0.2, rowMax: 1_000 };

describe("item-item model", () => {
  const x = skewedBinary(80, 40, 3);

  it("scores a weighted query as the definition does when rows are kept whole (weights are stored as float32)", () => {
    const { rows } = fitItemItem(x, whole);
    const s = byDefinition(x, whole);
    const query = [0, 4, 17];
    const weights = [1, 2, 0.5];
    const scores = new Float64Array(40);
    const touched = new Int32Array(40);
    const count = itemItemScores(rows, query, weights, scores, touched);
    for (let j = 0; j < 40; j++)
      expect(scores[j]).toBeCloseTo(
        query.reduce((sum, i, q) => sum + weights[q]! * s[i]![j]!, 0),
        6,
      );
    // Every item with a score is listed once among the touched ones.
    const listed = Array.from(touched.subarray(0, count)).sort((a, b) => a - b);
    expect(listed).toEqual([...Array(40).keys()].filter((j) => scores[j]! > 0));
  });

  it("keeps each item's rowMax strongest neighbours, strongest first", () => {
    const { rows } = fitItemItem(x, { ...whole, rowMax: 5 });
    const s = byDefinition(x, whole);
    for (let i = 0; i < 40; i++) {
      const expected = s[i]!.map((v, j) => [v, j] as const).filter(([v]) => v > 0);
      expected.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
      const kept = Array.from(rows.neighbours.subarray(rows.rowStart[i]!, rows.rowStart[i + 1]!));
      expect(kept).toEqual(expected.slice(0, 5).map(([, j]) => j));
    }
  });

  it("lists each item's neighbours for similar by the same row, the closest at 1", () => {
    const { rows, similar } = fitItemItem(x, whole);
    for (let i = 0; i < 40; i++) {
      const base = i * similar!.perItem;
      const row = rows.neighbours.subarray(rows.rowStart[i]!, rows.rowStart[i + 1]!);
      if (row.length === 0) {
        expect(similar!.slots[base]).toBe(END);
        continue;
      }
      expect(slotItem(similar!.slots[base]!)).toBe(row[0]);
      expect(slotCosine(similar!.slots[base]!)).toBeCloseTo(1, 3);
      for (let k = 1; k < Math.min(row.length, similar!.perItem); k++) {
        expect(slotItem(similar!.slots[base + k]!)).toBe(row[k]);
        expect(slotCosine(similar!.slots[base + k]!)).toBeLessThanOrEqual(slotCosine(similar!.slots[base + k - 1]!));
      }
    }
  });

  it("leaves an item nobody has without neighbours, and in nobody's row", () => {
    const { rows } = fitItemItem({ ...x, cols: 41 }, whole);
    expect(rows.rowStart[41]! - rows.rowStart[40]!).toBe(0);
    expect(Array.from(rows.neighbours)).not.toContain(40);
  });
});
