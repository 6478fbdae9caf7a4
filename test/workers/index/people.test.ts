import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { DEFAULT_USER_LIMITS } from "../../../src/wire/userLimits.js";

const HISTORY_MAX = DEFAULT_USER_LIMITS.historyMax;
import { queryOf, trainingSet } from "../../../workers/training/trainingSet.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

/** An organisation whose user `heavy` viewed items 0 … n−1 in order (item 0 twice, at the start). */
function heavyUser(n: number): OrgIndex {
  const index = new OrgIndex(1, 0);
  for (let i = 0; i < n + 10; i++) index.upsertItem(`i${i}`, "film", "active", {}, 0);
  const view = (item: number, atS: number) =>
    index.applyEvent({ userId: "heavy", itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS }, atS);
  view(0, 0);
  for (let i = 0; i < n; i++) view(i, i + 1);
  return index;
}

function strengthsOf(index: OrgIndex, userId: string): Map<string, number> {
  const { matrix } = trainingSet(index);
  const u = index.people.find(userId);
  const out = new Map<string, number>();
  for (let a = matrix.indptr[u]!; a < matrix.indptr[u + 1]!; a++) out.set(index.catalog.ids.name(matrix.indices[a]!), matrix.values[a]!);
  return out;
}

describe("a user's record beyond their history", () => {
  it("trains the model on every item of a user with more events than the history keeps, weights summed", () => {
    const index = heavyUser(2 * HISTORY_MAX);
    expect(index.people.history.size(index.people.find("heavy"))).toBeLessThan(2 * HISTORY_MAX);
    const strengths = strengthsOf(index, "heavy");
    expect(strengths.size).toBe(2 * HISTORY_MAX);
    expect(strengths.get("i0")).toBe(2);
    expect(strengths.get("i1")).toBe(1);
  });

  it("holds an item's summed weight before the history's window to a signed byte (127), never wrapping it around", () => {
    const index = new OrgIndex(1, 0);
    for (let i = 0; i < 2; i++) index.upsertItem(`i${i}`, "film", "active", {}, 0);
    const buy = (item: number, atS: number) =>
      index.applyEvent({ userId: "fan", itemId: `i${item}`, family: "conversion", name: "purchase", weight: 4, previousUserId: null, atS }, atS);
    // 40 purchases of i0 (160), then enough of i1 to push all of them out of the history.
    for (let k = 0; k < 40; k++) buy(0, k);
    for (let k = 0; k < 2 * HISTORY_MAX; k++) buy(1, 100 + k);
    const strengths = strengthsOf(index, "fan");
    expect(strengths.get("i0")).toBe(127);
    expect(strengths.get("i1")).toBeGreaterThan(127);
  });

  it("leaves out of exclude_seen results the items seen before the history's window", () => {
    const index = heavyUser(2 * HISTORY_MAX);
    const ranked = rankOnIndex(index, { strategy: "popular", user_id: "heavy", exclude_seen: true, limit: 20 });
    // Every viewed item was seen (most of them before the history's window), so popular has nothing left: the
    // page is the ten items nobody viewed, from the new-arrivals fallback.
    const unseen = Array.from({ length: 10 }, (_, k) => `i${2 * HISTORY_MAX + k}`);
    expect(ranked.map((r) => r.item_id).sort()).toEqual(unseen.sort());
    expect(ranked.every((r) => r.reason === "new")).toBe(true);
  });

  it("moves the anonymous id's earlier items to the user on identify", () => {
    const index = heavyUser(2 * HISTORY_MAX);
    index.applyEvent({ userId: "known", itemId: "i5", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 5_000 }, 5_000);
    index.applyEvent({ userId: "known", itemId: null, family: "system", name: "identify", weight: 0, previousUserId: "heavy", atS: 5_001 }, 5_001);
    const strengths = strengthsOf(index, "known");
    expect(strengths.size).toBe(2 * HISTORY_MAX);
    expect(strengths.get("i0")).toBe(2);
    expect(strengths.get("i5")).toBe(2);
  });

  it("weighs a user's latest items more in a query, by how many items they touched since, not by the clock", () => {
    const index = heavyUser(30);
    const { items, weights } = queryOf(index, index.people.find("heavy"));
    const weightOf = (id: string) => weights[[...items].findIndex((i) => index.catalog.ids.name(i) === id)]!;
    expect(weightOf("i29")).toBe(2);
    expect(weightOf("i24")).toBeCloseTo(1.5, 10);
    expect(weightOf("i0")).toBeCloseTo(1, 1);
    expect(items.length).toBe(30);
  });

  it("weighs every item as the latest when the whole history bears one time (a record loaded without times has no order)", () => {
    const index = new OrgIndex(1, 0);
    for (let i = 0; i < 12; i++) index.upsertItem(`i${i}`, "place", "active", {}, 0);
    for (let i = 0; i < 12; i++)
      index.applyEvent({ userId: "u", itemId: `i${i}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 100 }, 100);
    const { weights } = queryOf(index, index.people.find("u"));
    expect([...weights]).toEqual(new Array(12).fill(2));
  });
});

describe("erasing users from the index", () => {
  it("forgets a user's history, earlier items, status and aliases from and to them, zeroes their rows, and leaves others and new events alone", () => {
    const index = heavyUser(2 * HISTORY_MAX);
    const people = index.people;
    index.upsertUser("heavy", "inactive");
    index.applyEvent({ userId: "other", itemId: "i1", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 5 }, 5);
    index.applyAlias("anon-1", "heavy");
    index.applyAlias("heavy-old", "other");
    const u = people.find("heavy");
    const { start, size } = { start: people.history.start(u), size: people.history.size(u) };
    const changes = index.eventsSinceTraining;

    index.eraseUsers(["heavy", "heavy-old"]);
    expect([people.history.size(u), people.earlier.size(u), people.isHidden(u)]).toEqual([0, 0, false]);
    expect(Array.from(people.history.cols.key.subarray(start, start + size)).every((k) => k === 0)).toBe(true);
    expect(strengthsOf(index, "heavy").size).toBe(0);
    expect(index.eventsSinceTraining).toBeGreaterThan(changes + HISTORY_MAX);
    // The anonymous id no longer leads to the erased user, nor the erased alias to the other one.
    expect([people.canonical("anon-1"), people.canonical("heavy-old")]).toEqual(["anon-1", "heavy-old"]);
    expect([...strengthsOf(index, "other").keys()]).toEqual(["i1"]);
    // The id used again is a new user.
    index.applyEvent({ userId: "heavy", itemId: "i3", family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 9 }, 9);
    expect([...strengthsOf(index, "heavy").keys()]).toEqual(["i3"]);
  });
});
