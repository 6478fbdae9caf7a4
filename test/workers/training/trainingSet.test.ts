import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { NOT_RECENT, recencyWeight } from "../../../workers/training/query.js";
import { QUERY_MAX_ITEMS } from "../../../workers/model/itemItem.js";
import { latestOf, queryOf, rowShare, trainingSet } from "../../../workers/training/trainingSet.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";

/** The sort latestOf stands for: by code, later position first among equal codes, kept in row order. */
function bySort(codes: Uint16Array, max: number): number[] {
  const positions = Array.from({ length: codes.length }, (_, k) => k).sort((a, b) => codes[a]! - codes[b]! || b - a);
  return positions.slice(0, max).sort((a, b) => a - b);
}

describe("a user's query (queryOf)", () => {
  it("reads a record of 3,000 items as its latest QUERY_MAX_ITEMS, newest weighted most", () => {
    const index = new OrgIndex(1, 0);
    const ITEMS = 3_000;
    for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "book", "active", {}, 0);
    // One view per item in order: the history keeps the newest, the rest become the user's earlier items.
    for (let i = 0; i < ITEMS; i++)
      index.applyEvent(
        { userId: "heavy", itemId: `i${i}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: i + 1 },
        ITEMS + 1,
      );
    const u = index.people.find("heavy");
    const whole = queryOf(index, u);
    expect(whole.items.length).toBe(ITEMS);
    const { items, weights } = queryOf(index, u, QUERY_MAX_ITEMS);
    expect(items.length).toBe(QUERY_MAX_ITEMS);
    const ids = Array.from(items, (i) => Number(index.catalog.ids.names[i]!.slice(1))).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: QUERY_MAX_ITEMS }, (_, k) => ITEMS - QUERY_MAX_ITEMS + k));
    const newest = items.indexOf(index.catalog.ids.find(`i${ITEMS - 1}`));
    expect(weights[newest]).toBe(recencyWeight(0));
    expect(Math.min(...weights)).toBe(1);
  });

  it("picks in one pass the same positions as sorting by code would, whatever mix of codes", () => {
    const random = seededRandom(5);
    for (let round = 0; round < 200; round++) {
      const size = 1 + Math.floor(random() * 300);
      const recent = Math.floor(random() * size);
      const codes = new Uint16Array(size).fill(NOT_RECENT);
      const ranks = Array.from({ length: recent }, (_, r) => (random() < 0.2 ? 0 : r));
      for (const r of ranks) codes[Math.floor(random() * size)] = r;
      const max = 1 + Math.floor(random() * size);
      expect(Array.from(latestOf(codes, size, max)), `round ${round}`).toEqual(bySort(codes, max));
    }
  });
});

describe("the training budget (rowShare, TRAINING_ENTRIES_MAX)", () => {
  const total = (lengths: number[], share: number) => lengths.reduce((s, n) => s + Math.min(n, share), 0);

  it("keeps every row whole while the rows fit the budget", () => {
    expect(rowShare(Int32Array.from([5, 300, 40]), 4_096, 345)).toBe(4_096);
  });

  it("gives each row at most the longest share that keeps the set within the budget, cutting the longest rows first", () => {
    const random = seededRandom(9);
    for (let round = 0; round < 200; round++) {
      const lengths = Array.from({ length: 1 + Math.floor(random() * 400) }, () => Math.floor(random() ** 3 * 4_096));
      const budget = 1 + Math.floor(random() * total(lengths, 4_096));
      const share = rowShare(Int32Array.from(lengths), 4_096, budget);
      expect(total(lengths, share)).toBeLessThanOrEqual(budget);
      // One more item a row would overrun it: the share is as long as the budget allows.
      if (share < 4_096 && share > 1) expect(total(lengths, share + 1)).toBeGreaterThan(budget);
    }
  });

  it("builds a set within the budget from each user's latest items, the rows under the share whole", () => {
    const index = new OrgIndex(1, 0);
    for (let i = 0; i < 500; i++) index.upsertItem(`i${i}`, "book", "active", {}, 0);
    // User u views 10·(u + 1) distinct items, one at a time: rows of 10 to 400.
    for (let u = 0; u < 40; u++)
      for (let k = 0; k < 10 * (u + 1); k++)
        index.applyEvent(
          { userId: `u${u}`, itemId: `i${(k * 7 + u) % 500}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: k + 1 },
          1e6,
        );
    const whole = trainingSet(index);
    expect(whole.matrix.indices.length).toBe(8_200);
    expect(whole.rowMax).toBe(index.people.limits.itemsMax);
    const cut = trainingSet(index, 4_000);
    expect(cut.matrix.indices.length).toBeLessThanOrEqual(4_000);
    expect(cut.rowMax).toBeLessThan(400);
    for (let u = 0; u < 40; u++) {
      const row = (set: typeof whole) => Array.from(set.matrix.indices.subarray(set.matrix.indptr[u]!, set.matrix.indptr[u + 1]!));
      const latest = queryOf(index, u, cut.rowMax).items;
      expect(row(cut), `u${u}`).toEqual(Array.from(latest));
      if (10 * (u + 1) <= cut.rowMax) expect(row(cut)).toEqual(row(whole));
    }
  });
});
