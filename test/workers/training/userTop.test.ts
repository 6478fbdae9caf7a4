import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { trainModel } from "../../../workers/training/train.js";
import { QUERY_MAX_ITEMS } from "../../../workers/training/query.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";
import { fitUserTop, USER_TOP_PER_USER } from "../../../workers/training/userTop.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { rankOnIndex, type Ranked } from "../../helpers/rankOnIndex.js";

// Past both closed-form limits (2,000 items, 1,500 users), so the model is item-item with kept lists.
const ITEMS = 2_400;
const USERS = 1_700;
const TOPICS = 12;

/**
 * Users who each touched 8-30 items, mostly of their topic, at distinct times; every fifth user's events all
 * bear one time (a record without order); some disliked an item they viewed (its strength falls to ≤ 0, so it
 * is seen but not in their query).
 */
function plantedIndex(): OrgIndex {
  const random = seededRandom(11);
  const index = new OrgIndex(1, 0);
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "book", "active", { shelf: `s${i % 10}` }, 0);
  for (let u = 0; u < USERS; u++) {
    const events = 8 + Math.floor(random() * 23);
    for (let k = 0; k < events; k++) {
      const item = random() < 0.8 ? (u % TOPICS) + TOPICS * Math.floor(random() ** 2 * (ITEMS / TOPICS)) : Math.floor(random() * ITEMS);
      const atS = u % 5 === 0 ? 1 : k + 1;
      index.applyEvent({ userId: `u${u}`, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS }, 100);
      if (k === 3 && u % 7 === 0)
        index.applyEvent({ userId: `u${u}`, itemId: `i${item}`, family: "engagement", name: "dislike", weight: -2, previousUserId: null, atS }, 100);
    }
  }
  const { matrix, userVersions, recency } = trainingSet(index);
  index.model = trainModel(matrix, userVersions, DEFAULT_ALS, undefined, recency);
  return index;
}

/** The same request answered with the kept lists and with every query summed afresh. */
function keptAndFresh(index: OrgIndex, body: Record<string, unknown>): { kept: Ranked[]; fresh: Ranked[] } {
  const model = index.model!;
  const lists = model.userTop;
  const kept = rankOnIndex(index, body, 100);
  model.userTop = undefined;
  try {
    return { kept, fresh: rankOnIndex(index, body, 100) };
  } finally {
    model.userTop = lists;
  }
}

const ids = (r: Ranked[]) => r.map((x) => x.item_id);

describe("personalized's kept lists (item-item model)", () => {
  let index: OrgIndex;
  beforeAll(() => {
    index = plantedIndex();
    expect(index.model!.closedForm).toBeUndefined();
    expect(index.model!.userTop).toBeDefined();
  });

  it("keeps a list for every trained user, each at most USER_TOP_PER_USER long", () => {
    const { counts, perUser } = index.model!.userTop!;
    expect(perUser).toBe(USER_TOP_PER_USER);
    expect(counts.length).toBe(USERS);
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBe(USER_TOP_PER_USER);
  });

  it("answers every user with the items a fresh sum of their rows ranks first, in its order", () => {
    for (let u = 0; u < USERS; u++) {
      const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 20 });
      expect(ids(kept), `u${u}`).toEqual(ids(fresh));
      expect(kept.map((r) => r.reason)).toEqual(fresh.map((r) => r.reason));
      kept.forEach((r, k) => expect(r.score).toBeCloseTo(fresh[k]!.score, 5));
    }
  });

  it("answers a second page and a filtered request the same, summing afresh when the list runs out", () => {
    for (let u = 0; u < USERS; u += 17) {
      const second = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 20, page: 2 });
      expect(ids(second.kept)).toEqual(ids(second.fresh));
      // One shelf in ten: a list of 48 rarely holds 21 of it.
      const filtered = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 20, filters: { shelf: "s3" } });
      expect(ids(filtered.kept)).toEqual(ids(filtered.fresh));
      expect(filtered.kept.every((r) => Number(r.item_id.slice(1)) % 10 === 3)).toBe(true);
    }
  });

  it("never returns an item the user has seen, including one whose strength a dislike took to zero or below", () => {
    const disliked = rankOnIndex(index, { strategy: "recently-viewed", user_id: "u7", limit: 100 }, 100).map((r) => r.item_id);
    const top = ids(rankOnIndex(index, { strategy: "personalized", user_id: "u7", limit: 40 }, 100));
    expect(top.filter((item) => disliked.includes(item))).toEqual([]);
  });

  it("follows a user's new events at once: their history moved on, so the query is summed afresh", () => {
    const before = ids(rankOnIndex(index, { strategy: "personalized", user_id: "u4", limit: 10 }, 100));
    for (let k = 0; k < 15; k++) {
      const item = 9 + TOPICS * k;
      index.applyEvent({ userId: "u4", itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 200 + k }, 300);
    }
    const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: "u4", limit: 10 });
    expect(ids(kept)).not.toEqual(before);
    expect(ids(kept)).toEqual(ids(fresh));
    expect(kept.filter((r) => Number(r.item_id.slice(1)) % TOPICS === 9).length).toBeGreaterThanOrEqual(5);
  });

  it("includes the user's own items when the request asks not to exclude them, as a fresh sum does", () => {
    const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: "u10", limit: 20, exclude_seen: false });
    expect(ids(kept)).toEqual(ids(fresh));
  });

  it("keeps no list for a user past the query's item limit, nor past the entry budget", () => {
    const { matrix, recency } = trainingSet(index);
    const model = index.model!.itemItem!;
    const few = fitUserTop(model, matrix, recency, 10);
    for (let u = 0; u < USERS; u++) expect(few.counts[u]! >= 0, `u${u}`).toBe(matrix.indptr[u + 1]! - matrix.indptr[u]! <= 10);
    const budget = fitUserTop(model, matrix, recency, QUERY_MAX_ITEMS, 48, 48 * 100);
    expect(budget.items.length).toBe(48 * 100);
    expect(Array.from(budget.counts).filter((c) => c >= 0).length).toBe(100);
  });
});
