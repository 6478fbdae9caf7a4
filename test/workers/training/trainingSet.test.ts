import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { NOT_RECENT, QUERY_MAX_ITEMS, recencyWeight } from "../../../workers/training/query.js";
import { latestOf, queryOf } from "../../../workers/training/trainingSet.js";
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
