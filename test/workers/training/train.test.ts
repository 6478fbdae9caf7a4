import { describe, expect, it } from "vitest";
import type { SparseRows } from "../../../workers/training/als.js";
import { closedFormScores } from "../../../workers/model/ease.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { trainModel } from "../../../workers/training/train.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";

/**
 * An organisation may upsert thousands of users before their events stream in (the issue measured a shop of 6,040
 * users waiting ten minutes for its first model): every fit must cost what the users with events cost, and give
 * the model they give.
 */
const params = { ...DEFAULT_ALS, factors: 8, iterations: 2 };

/** A users × items matrix of strengths, each pair present with probability `density`. */
function randomRows(users: number, items: number, density: number, seed: number): SparseRows {
  const random = seededRandom(seed);
  const indptr = new Int32Array(users + 1);
  const indices: number[] = [];
  for (let u = 0; u < users; u++) {
    for (let i = 0; i < items; i++) if (random() < density) indices.push(i);
    indptr[u + 1] = indices.length;
  }
  return { rows: users, cols: items, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(2) };
}

/** The same rows with `idle` users of no events spread among them (every `every`-th user has the next active row). */
function withIdleUsers(active: SparseRows, idle: number): SparseRows {
  const rows = active.rows + idle;
  const every = Math.floor(rows / active.rows);
  const indptr = new Int32Array(rows + 1);
  let next = 0;
  for (let u = 0; u < rows; u++) {
    const takes = next < active.rows && (u % every === every - 1 || rows - u === active.rows - next);
    indptr[u + 1] = takes ? active.indptr[++next]! : indptr[u]!;
  }
  expect(next).toBe(active.rows);
  return { ...active, rows, indptr };
}

const train = (x: SparseRows) => trainModel(x, new Int32Array(x.rows), params);

describe("training an organisation that upserted users before their events", () => {
  it("fits EASE's dual form over the users with events only: 40 of 6,040 make a 40 × 40 inverse and the same scores", () => {
    const active = randomRows(40, 300, 0.1, 9);
    const idle = train(withIdleUsers(active, 6_000)).closedForm!;
    const alone = train(active).closedForm!;
    expect(idle.form === "dual" && idle.inverse.length).toBe(40 * 40);
    expect(idle.lambda).toBe(alone.lambda);
    const [a, b] = [new Float64Array(300), new Float64Array(300)];
    closedFormScores(idle, [1, 5, 80], [1, 2, 1], a);
    closedFormScores(alone, [1, 5, 80], [1, 2, 1], b);
    a.forEach((s, j) => expect(s).toBeCloseTo(b[j]!, 6));
  });

  it("fits EASE's primal form from the users with events only, to the same weights", () => {
    const active = randomRows(60, 40, 0.2, 4);
    const idle = train(withIdleUsers(active, 6_000)).closedForm!;
    const alone = train(active).closedForm!;
    expect(idle.form).toBe("primal");
    expect(idle.lambda).toBe(alone.lambda);
    expect(idle.form === "primal" && Array.from(idle.weights)).toEqual(alone.form === "primal" && Array.from(alone.weights));
  });

  it("leaves the ALS vectors of users with no events at zero, unsolved and weighing nothing in the items' solves", () => {
    const x = withIdleUsers(randomRows(40, 300, 0.1, 9), 600);
    const model = train(x);
    const f = params.factors;
    let idle = 0;
    for (let u = 0; u < x.rows; u++) {
      const row = Array.from(model.userVectors.subarray(u * f, u * f + f));
      if (x.indptr[u] === x.indptr[u + 1]) {
        idle++;
        expect(row.every((v) => v === 0)).toBe(true);
      } else expect(row.some((v) => v !== 0)).toBe(true);
    }
    expect(idle).toBe(600);
  });

  it("fits the item-item model past both closed forms to the same rows, whatever number of users without events", () => {
    // 1,600 users with events and 2,100 items: past both closed forms.
    const active = randomRows(1_600, 2_100, 0.004, 2);
    const idle = train(withIdleUsers(active, 6_000));
    const alone = train(active);
    expect(idle.closedForm).toBeUndefined();
    expect(idle.itemItem!.neighbours.length).toBeGreaterThan(0);
    expect(Array.from(idle.itemItem!.rowStart)).toEqual(Array.from(alone.itemItem!.rowStart));
    expect(Array.from(idle.itemItem!.neighbours)).toEqual(Array.from(alone.itemItem!.neighbours));
    expect(Array.from(idle.itemItem!.weights)).toEqual(Array.from(alone.itemItem!.weights));
  });
});
