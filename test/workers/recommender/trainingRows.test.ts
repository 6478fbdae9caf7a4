import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { DEFAULT_USER_LIMITS } from "../../../src/wire/userLimits.js";

const HISTORY_MAX = DEFAULT_USER_LIMITS.historyMax;
import { trainingSetInSlices } from "../../../workers/recommender/trainingRows.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";

/** A seeded organisation: 40 users over 60 items, views, purchases and a few negative events; one user past the history's length. */
function organisation(): OrgIndex {
  const index = new OrgIndex(1, 0);
  for (let i = 0; i < 60; i++) index.upsertItem(`i${i}`, "film", "active", {}, 0);
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  let atS = 0;
  const event = (user: string, item: number, name: string, weight: number) =>
    index.applyEvent(
      { userId: user, itemId: `i${item}`, family: name === "purchase" ? "conversion" : "engagement", name, weight, previousUserId: null, atS: ++atS },
      atS,
    );
  for (let k = 0; k < 3_000; k++) {
    const r = random();
    event(
      `u${Math.floor(random() * 40)}`,
      Math.floor(random() * 60),
      r < 0.8 ? "view" : r < 0.95 ? "purchase" : "dislike",
      r < 0.95 ? 1 + Math.floor(random() * 3) : -2,
    );
  }
  for (let k = 0; k < HISTORY_MAX + 200; k++) event("heavy", k % 60, "view", 1);
  return index;
}

describe("trainingSetInSlices", () => {
  it("builds the same matrix and user versions as trainingSet, slice by slice", async () => {
    const index = organisation();
    const whole = trainingSet(index);
    let pauses = 0;
    // A pause at every check: the slices are as small as they get.
    const sliced = await trainingSetInSlices(index, undefined, async () => void pauses++, 0);
    expect(pauses).toBeGreaterThan(0);
    expect(sliced.matrix.rows).toBe(whole.matrix.rows);
    expect(sliced.matrix.cols).toBe(whole.matrix.cols);
    expect([...sliced.matrix.indptr]).toEqual([...whole.matrix.indptr]);
    expect([...sliced.matrix.indices]).toEqual([...whole.matrix.indices]);
    expect([...sliced.matrix.values]).toEqual([...whole.matrix.values]);
    expect([...sliced.userVersions]).toEqual([...whole.userVersions]);
  });

  it("takes each user's version with their row when events arrive between slices", async () => {
    const index = organisation();
    const last = index.people.ids.size - 1;
    let applied = false;
    const { matrix, userVersions } = await trainingSetInSlices(
      index,
      undefined,
      async () => {
        if (applied) return;
        applied = true;
        // Between slices: an event for the last user, whose row is not built yet.
        index.applyEvent(
          { userId: index.people.ids.name(last), itemId: "i59", family: "engagement", name: "view", weight: 3, previousUserId: null, atS: 1e6 },
          1e6,
        );
      },
      0,
    );
    expect(applied).toBe(true);
    expect(userVersions[last]).toBe(index.people.version[last]);
    expect([...matrix.indices.subarray(matrix.indptr[last]!, matrix.indptr[last + 1]!)]).toEqual([
      ...trainingSet(index).matrix.indices.subarray(matrix.indptr[last]!),
    ]);
  });
});
