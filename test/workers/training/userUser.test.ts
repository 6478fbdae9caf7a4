import { describe, expect, it } from "vitest";
import type { SparseRows } from "../../../workers/training/als.js";
import { USER_USER, UserUserTerm } from "../../../workers/training/userUser.js";

/** `users` users who all share item 0, each with one item of their own besides (item 1 + u). */
function sharedItem(users: number): SparseRows {
  const indptr = Int32Array.from({ length: users + 1 }, (_, u) => 2 * u);
  const indices = new Int32Array(2 * users);
  for (let u = 0; u < users; u++) indices.set([0, 1 + u], 2 * u);
  return { rows: users, cols: users + 1, indptr, indices, values: new Float32Array(2 * users).fill(1) };
}

function termOf(matrix: SparseRows, itemUsersMax: number, user: number, query: number[]): Map<number, number> {
  const term = new UserUserTerm(matrix, { ...USER_USER, itemUsersMax });
  const scores = new Float64Array(matrix.cols);
  const touched = new Int32Array(matrix.cols);
  const count = term.scores(
    user,
    query,
    query.map(() => 1),
    scores,
    touched,
  );
  return new Map(Array.from(touched.subarray(0, count), (j) => [j, scores[j]!]));
}

describe("the user-user term of the kept lists", () => {
  it("reaches the items of the user's nearest users only, each weighed by its closeness to the power", () => {
    // User 0 shares item 0 with everyone and item 1 (its own) with nobody: every other user is as near.
    const matrix = sharedItem(300);
    const reached = termOf(matrix, 1_000, 0, [0, 1]);
    // The 100 nearest (ties to the lower user: 1 … 100) bring item 0 and their own items 2 … 101.
    expect([...reached.keys()].sort((a, b) => a - b)).toEqual([0, ...Array.from({ length: 100 }, (_, k) => 2 + k)]);
    // closeness = (1 / 300 users of item 0) / (2 items of the neighbour), to the power ½.
    const each = (1 / 300 / 2) ** USER_USER.power;
    expect(reached.get(2)).toBeCloseTo(each, 12);
    expect(reached.get(0)).toBeCloseTo(100 * each, 10);
  });

  it("reads an item of more users than itemUsersMax through an evenly spaced sample of them, weighed for the rest", () => {
    const matrix = sharedItem(5_000);
    const sampled = termOf(matrix, 50, 0, [0]);
    // 50 users read of item 0's 5,000 (user 0 among them): at most 50 neighbours, each carrying 1/50.
    expect(sampled.size).toBeLessThanOrEqual(51);
    expect(sampled.size).toBeGreaterThanOrEqual(50);
    const each = (1 / 50 / 2) ** USER_USER.power;
    for (const [j, s] of sampled) if (j !== 0) expect(s).toBeCloseTo(each, 12);
  });
});
