import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { SnapshotReader, SnapshotWriter } from "../../../workers/index/snapshotBytes.js";
import { trainModel } from "../../../workers/training/train.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import type { UserLimits } from "../../../src/wire/userLimits.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const NOW_S = 1_800_000_000;
const LIMITS: UserLimits = { historyMax: 32, itemsMax: 64 };
const ITEMS = 600;
/** The heavy user's events: far more than either limit, over far more distinct items. */
const HEAVY_EVENTS = 6_000;

/** Event k of the heavy user: items cycling through all ITEMS (each seen 10 times), a purchase now and then. */
function heavyEvent(k: number) {
  const buy = k % 13 === 0;
  return {
    userId: "heavy",
    itemId: `i${(k * 7) % ITEMS}`,
    family: buy ? "conversion" : "engagement",
    name: buy ? "purchase" : "view",
    weight: buy ? 4 : 1,
    previousUserId: null,
    atS: NOW_S - HEAVY_EVENTS + k,
  };
}

/** An organisation of light users (a few events each) and one heavy user, with `limits`. */
function built(limits: UserLimits, heavyEvents = HEAVY_EVENTS): OrgIndex {
  const index = new OrgIndex(1, NOW_S, undefined, limits);
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "product", "active", {}, NOW_S - 400_000);
  for (let k = 0; k < 4_000; k++)
    index.applyEvent(
      {
        userId: `u${k % 400}`,
        itemId: `i${(k * 31 + (k >> 4)) % 200}`,
        family: "engagement",
        name: "view",
        weight: 1,
        previousUserId: null,
        atS: NOW_S - 300_000 + k,
      },
      NOW_S,
    );
  for (let k = 0; k < heavyEvents; k++) index.applyEvent(heavyEvent(k), NOW_S);
  return index;
}

/** The heavy user's distinct items (or viewed items), latest touched first (what the limits keep the first itemsMax of). */
function latestDistinct(n: number, viewsOnly = false): string[] {
  const out: string[] = [];
  for (let k = HEAVY_EVENTS - 1; k >= 0 && out.length < n; k--) {
    const { itemId: item, name } = heavyEvent(k);
    if (viewsOnly && name !== "view") continue;
    if (!out.includes(item)) out.push(item);
  }
  return out;
}

function trainingRow(index: OrgIndex, userId: string): string[] {
  const { matrix } = trainingSet(index);
  const u = index.people.find(userId);
  const items: string[] = [];
  for (let a = matrix.indptr[u]!; a < matrix.indptr[u + 1]!; a++) items.push(index.catalog.ids.name(matrix.indices[a]!));
  return items;
}

function snapshotCopy(index: OrgIndex, limits: UserLimits): OrgIndex {
  const w = new SnapshotWriter();
  index.snapshotTo(w);
  const copy = w.copy();
  let step = copy.next();
  while (!step.done) step = copy.next();
  const restored = new OrgIndex(1, NOW_S, undefined, limits);
  restored.restoreFrom(SnapshotReader.of(Buffer.concat(step.value.parts)));
  for (let i = 0; i < ITEMS; i++) restored.upsertItem(`i${i}`, "product", "active", {}, NOW_S - 400_000);
  return restored;
}

/** A small model: what is compared is the two indexes' training rows, not the model's quality. */
const SMALL_ALS = { ...DEFAULT_ALS, factors: 8, iterations: 2 };

const REQUESTS = [
  { strategy: "recently-viewed", user_id: "heavy", limit: 50 },
  { strategy: "buy-again", user_id: "heavy", limit: 50 },
  { strategy: "popular", user_id: "heavy", exclude_seen: true, limit: 50 },
  { strategy: "personalized", user_id: "heavy", limit: 20 },
  { strategy: "because-you-viewed", user_id: "heavy", limit: 20 },
  { strategy: "recently-viewed", user_id: "u7", limit: 20 },
  { strategy: "personalized", user_id: "u7", limit: 20 },
];

describe("what the index keeps of a user with far more events than USER_HISTORY_MAX and USER_ITEMS_MAX", () => {
  it("keeps at most USER_HISTORY_MAX events and USER_ITEMS_MAX earlier items, whatever the user sends", () => {
    const index = built(LIMITS);
    const u = index.people.find("heavy");
    expect(index.people.history.size(u)).toBeLessThanOrEqual(LIMITS.historyMax);
    expect(index.people.earlier.size(u)).toBeLessThanOrEqual(LIMITS.itemsMax);
    const bytes = index.people.history.bytes + index.people.earlier.bytes;
    // Ten times as many events for the same user leave the memory where it was.
    const longer = built(LIMITS, 10 * HEAVY_EVENTS);
    expect(longer.people.history.bytes + longer.people.earlier.bytes).toBe(bytes);
  });

  it("trains on, and excludes as seen, the user's latest USER_ITEMS_MAX distinct items", () => {
    const index = built(LIMITS);
    const row = trainingRow(index, "heavy");
    expect(row).toHaveLength(LIMITS.itemsMax);
    expect(new Set(row)).toEqual(new Set(latestDistinct(LIMITS.itemsMax)));
    const excluded = rankOnIndex(index, { strategy: "popular", user_id: "heavy", exclude_seen: true, limit: 100 }, NOW_S).map((r) => r.item_id);
    for (const item of latestDistinct(LIMITS.itemsMax)) expect(excluded).not.toContain(item);
    // A light user's row is whole.
    expect(new Set(trainingRow(index, "u7")).size).toBe(trainingRow(index, "u7").length);
  });

  it("answers the heavy user's recently-viewed with their latest events", () => {
    const index = built(LIMITS);
    const recent = rankOnIndex(index, { strategy: "recently-viewed", user_id: "heavy", limit: 10 }, NOW_S).map((r) => r.item_id);
    expect(recent).toEqual(latestDistinct(10, true));
  });

  it("answers after a restart from a snapshot as before it, model included", () => {
    const original = built(LIMITS);
    const copy = snapshotCopy(original, LIMITS);
    for (const index of [original, copy]) {
      const set = trainingSet(index);
      index.model = trainModel(set.matrix, set.userVersions, SMALL_ALS, undefined, set.recency);
    }
    for (const body of REQUESTS) expect([body, rankOnIndex(copy, body, NOW_S)]).toEqual([body, rankOnIndex(original, body, NOW_S)]);
  });

  it("holds a snapshot taken with larger limits to the restarted process's smaller ones as it loads", () => {
    const wide = built({ historyMax: 256, itemsMax: 1_024 });
    const u = wide.people.find("heavy");
    expect(wide.people.earlier.size(u)).toBeGreaterThan(LIMITS.itemsMax);
    const copy = snapshotCopy(wide, LIMITS);
    expect(copy.people.history.size(u)).toBeLessThanOrEqual(LIMITS.historyMax);
    expect(copy.people.earlier.size(u)).toBeLessThanOrEqual(LIMITS.itemsMax);
    expect(trainingRow(copy, "heavy")).toHaveLength(LIMITS.itemsMax);
    const recent = rankOnIndex(copy, { strategy: "recently-viewed", user_id: "heavy", limit: 10 }, NOW_S).map((r) => r.item_id);
    expect(recent).toEqual(latestDistinct(10, true));
    copy.applyEvent(heavyEvent(HEAVY_EVENTS), NOW_S);
    expect(copy.people.history.size(u)).toBeLessThanOrEqual(LIMITS.historyMax);
    expect(copy.people.earlier.size(u)).toBeLessThanOrEqual(LIMITS.itemsMax);
  });
});
