import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { trainModel } from "../../../workers/training/train.js";
import { itemItemScores, QUERY_MAX_ITEMS } from "../../../workers/model/itemItem.js";
import { queryOf, trainingSet } from "../../../workers/training/trainingSet.js";
import { fitUserTop, USER_TOP_MAX_ENTRIES, USER_TOP_PER_USER } from "../../../workers/training/userTop.js";
import { NO_USER_USER, USER_USER } from "../../../workers/training/userUser.js";
import { recencyWeight } from "../../../workers/training/query.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { rankOnIndex, type Ranked } from "../../helpers/rankOnIndex.js";
import type { RuleWire } from "../../../src/wire/rules.js";
import { ruleBook } from "../../../workers/strategies/rules/ruleBook.js";

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
const RULE: Omit<RuleWire, "name" | "action" | "items"> = {
  scenarios: null,
  strategies: null,
  factor: 1,
  position: null,
  share: null,
  startsS: null,
  endsS: null,
};
let ruleVersion = 0;

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

  it("ranks each user by (1 − a)·item-item / its largest + a·user-user / its largest, as a sum over every other user computes it", () => {
    const model = index.model!.itemItem!;
    const { matrix, recency } = trainingSet(index);
    const usersOf = new Map<number, number[]>();
    for (let v = 0; v < USERS; v++)
      for (let k = matrix.indptr[v]!; k < matrix.indptr[v + 1]!; k++)
        usersOf.set(matrix.indices[k]!, [...(usersOf.get(matrix.indices[k]!) ?? []), v]);
    const row = (v: number) => Array.from(matrix.indices.subarray(matrix.indptr[v]!, matrix.indptr[v + 1]!));
    for (let u = 0; u < USERS; u += 23) {
      const own = row(u);
      const weight = own.map((_, k) => recencyWeight(recency[matrix.indptr[u]! + k]!));
      const itemItem = new Map<number, number>();
      own.forEach((i, q) => {
        for (let a = model.rowStart[i]!; a < model.rowStart[i + 1]!; a++)
          itemItem.set(model.neighbours[a]!, (itemItem.get(model.neighbours[a]!) ?? 0) + weight[q]! * model.weights[a]!);
      });
      // Every other user's closeness: the query items they share, each weighed down by how many users it has.
      const closeness: { v: number; s: number }[] = [];
      for (let v = 0; v < USERS; v++) {
        if (v === u) continue;
        const theirs = new Set(row(v));
        const shared = own.reduce((sum, i, q) => sum + (theirs.has(i) ? weight[q]! / usersOf.get(i)!.length : 0), 0);
        if (shared > 0) closeness.push({ v, s: shared / theirs.size });
      }
      closeness.sort((a, b) => b.s - a.s || a.v - b.v);
      const userUser = new Map<number, number>();
      for (const { v, s } of closeness.slice(0, USER_USER.neighbours))
        for (const j of row(v)) userUser.set(j, (userUser.get(j) ?? 0) + s ** USER_USER.power);
      const candidates = [...new Set([...itemItem.keys(), ...userUser.keys()])].filter((j) => !own.includes(j));
      const maxI = Math.max(...candidates.map((j) => itemItem.get(j) ?? 0));
      const maxU = Math.max(...candidates.map((j) => userUser.get(j) ?? 0));
      const a = USER_USER.weight;
      // Ranked without every item the user has seen, including one a dislike took out of their query.
      const seen = new Set(ids(rankOnIndex(index, { strategy: "recently-viewed", user_id: `u${u}`, limit: 100 }, 100)));
      const expected = candidates
        .filter((j) => !seen.has(index.catalog.ids.name(j)))
        .map((j) => ({ j, s: ((1 - a) * (itemItem.get(j) ?? 0)) / maxI + (a * (userUser.get(j) ?? 0)) / maxU }))
        .sort((x, y) => y.s - x.s || x.j - y.j)
        .slice(0, 20);
      const kept = rankOnIndex(index, { strategy: "personalized", user_id: `u${u}`, limit: 20 }, 100);
      expect(kept.length, `u${u}`).toBe(20);
      kept.forEach((r, k) => expect(r.score, `u${u} #${k}`).toBeCloseTo(expected[k]!.s, 5));
      // Near-equal scores may swap between the two sums; each kept item must score as the reference scores it.
      const byItem = new Map(expected.map((e) => [index.catalog.ids.name(e.j), e.s]));
      expect(kept.filter((r) => Math.abs(r.score - (byItem.get(r.item_id) ?? -1)) > 1e-5).length, `u${u}`).toBe(0);
    }
  });

  it("ranks with the item-item rows alone when the user-user weight is 0: each list is what a fresh sum ranks first", () => {
    const model = index.model!;
    const { matrix, recency } = trainingSet(index);
    const blended = model.userTop;
    model.userTop = fitUserTop(model.itemItem!, matrix, recency, QUERY_MAX_ITEMS, USER_TOP_PER_USER, USER_TOP_MAX_ENTRIES, NO_USER_USER);
    try {
      for (let u = 0; u < USERS; u += 3) {
        const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 20 });
        expect(ids(kept), `u${u}`).toEqual(ids(fresh));
        kept.forEach((r, k) => expect(r.score).toBeCloseTo(fresh[k]!.score, 5));
      }
    } finally {
      model.userTop = blended;
    }
  });

  it("reads every page of one ranking: the list's items, then the fresh item-item ranking of the items it does not hold", () => {
    const lists = index.model!.userTop!;
    for (let u = 0; u < USERS; u += 17) {
      const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 100 });
      const listed = Array.from(lists.items.subarray(u * lists.perUser, u * lists.perUser + lists.counts[u]!), (j) => index.catalog.ids.name(j));
      const seen = new Set(ids(rankOnIndex(index, { strategy: "recently-viewed", user_id: `u${u}`, limit: 100 }, 100)));
      const expected = [...listed.filter((id) => !seen.has(id)), ...ids(fresh).filter((id) => !listed.includes(id))].slice(0, 100);
      expect(ids(kept), `u${u}`).toEqual(expected);
      const pages = [1, 2, 3, 4, 5].flatMap((page) => rankOnIndex(index, { strategy: "personalized", user_id: `u${u}`, limit: 20, page }, 100));
      expect(ids(pages)).toEqual(ids(kept));
      expect(new Set(ids(pages)).size).toBe(pages.length);
      for (let k = 1; k < pages.length; k++) expect(pages[k]!.score, `u${u} #${k}`).toBeLessThanOrEqual(pages[k - 1]!.score + 1e-6);
      // One shelf in ten: a list of 96 rarely holds 41 of it, so the page goes on past the list.
      const filtered = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 40, filters: { shelf: "s3" } });
      const onShelf = listed.filter((id) => !seen.has(id) && Number(id.slice(1)) % 10 === 3);
      expect(onShelf.length).toBeLessThan(40);
      expect(ids(filtered.kept)).toEqual([...onShelf, ...ids(filtered.fresh).filter((id) => !listed.includes(id))].slice(0, 40));
      expect(filtered.kept.every((r) => Number(r.item_id.slice(1)) % 10 === 3)).toBe(true);
    }
  });

  it("lets rules re-rank the list's own eligible items, with nothing summed afresh past it: pages continue each other", () => {
    const rules: RuleWire[] = [
      { ...RULE, name: "b", action: "block", items: { shelf: "s1" } },
      { ...RULE, name: "up", action: "boost", factor: 4, items: { shelf: "s2" } },
      { ...RULE, name: "down", action: "bury", factor: 0.25, items: { shelf: "s4" } },
    ];
    ruleBook.set(index.org, ++ruleVersion, rules);
    try {
      const lists = index.model!.userTop!;
      for (let u = 1; u < USERS; u += 97) {
        if (u % 5 === 0 || lists.counts[u]! < lists.perUser) continue;
        const start = u * lists.perUser;
        const listed = Array.from(lists.items.subarray(start, start + lists.counts[u]!), (j) => index.catalog.ids.name(j));
        const shelf = (id: string) => Number(id.slice(1)) % 10;
        const seen = new Set(ids(rankOnIndex(index, { strategy: "recently-viewed", user_id: `u${u}`, limit: 100 }, 100)));
        // The list's eligible items, re-scored by the rules (× 4, × 0.25), in the order that gives.
        const scoreOf = new Map(
          Array.from(lists.items.subarray(start, start + lists.counts[u]!), (j, k) => [index.catalog.ids.name(j), lists.scores[start + k]!]),
        );
        const expected = listed
          .filter((id) => !seen.has(id) && shelf(id) !== 1)
          .map((id, k) => ({ id, k, s: scoreOf.get(id)! * (shelf(id) === 2 ? 4 : shelf(id) === 4 ? 0.25 : 1) }))
          .sort((a, b) => b.s - a.s || a.k - b.k)
          .map((e) => e.id);
        const pages = [1, 2, 3].flatMap((page) => rankOnIndex(index, { strategy: "personalized", user_id: `u${u}`, limit: 20, page }, 100));
        expect(ids(pages), `u${u}`).toEqual(expected.slice(0, 60));
      }
    } finally {
      ruleBook.set(index.org, ++ruleVersion, []);
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

describe("personalized's kept lists under a training budget", () => {
  it("scores a query over the same latest items the budget gave its training row, so a list is what a fresh sum ranks first", () => {
    const index = plantedIndex();
    const whole = trainingSet(index);
    const { matrix, userVersions, recency, rowMax } = trainingSet(index, Math.floor(whole.matrix.indices.length * 0.6));
    expect(rowMax).toBeLessThan(30);
    const model = trainModel(matrix, userVersions, DEFAULT_ALS, undefined, recency, rowMax);
    expect(model.itemItem!.queryMax).toBe(rowMax);
    model.userTop = fitUserTop(model.itemItem!, matrix, recency, rowMax, USER_TOP_PER_USER, USER_TOP_MAX_ENTRIES, NO_USER_USER);
    index.model = model;
    let cutRows = 0;
    for (let u = 0; u < USERS; u += 3) {
      if (whole.matrix.indptr[u + 1]! - whole.matrix.indptr[u]! > rowMax) cutRows++;
      const { kept, fresh } = keptAndFresh(index, { strategy: "personalized", user_id: `u${u}`, limit: 20 });
      expect(ids(kept), `u${u}`).toEqual(ids(fresh));
      kept.forEach((r, k) => expect(r.score).toBeCloseTo(fresh[k]!.score, 5));
    }
    expect(cutRows).toBeGreaterThan(50);
  });
});

describe("personalized over a caller's candidates (item-item model)", () => {
  it("scores each candidate by the whole query's sum, leaves out items the model does not know, and fills from the fallbacks", () => {
    const index = plantedIndex();
    const model = index.model!.itemItem!;
    // An item upserted after training: the model has no row or column for it.
    index.upsertItem("late", "book", "active", { shelf: "s1" }, 0);
    const random = seededRandom(5);
    const sums = new Float64Array(model.items);
    const touched = new Int32Array(model.items);
    let ranked = 0;
    for (let u = 1; u < USERS; u += 41) {
      const picked = [...new Set(Array.from({ length: 60 }, () => Math.floor(random() * ITEMS)))];
      const candidates = [...picked.map((i) => `i${i}`), "late", "never-seen"];
      const results = rankOnIndex(index, { strategy: "personalized", user_id: `u${u}`, exclude_seen: false, limit: 100, candidates }, 100);
      const query = queryOf(index, index.people.find(`u${u}`), model.queryMax);
      const count = itemItemScores(model, query.items, query.weights, sums, touched);
      const expected = picked
        .map((i) => ({ i, s: sums[index.catalog.ids.find(`i${i}`)]! }))
        .filter((c) => Math.round(c.s * 1e6) > 0)
        .sort((a, b) => b.s - a.s || index.catalog.ids.find(`i${a.i}`) - index.catalog.ids.find(`i${b.i}`));
      for (let t = 0; t < count; t++) sums[touched[t]!] = 0;
      const own = results.filter((r) => r.reason === "collaborative");
      expect(
        own.map((r) => r.item_id),
        `u${u}`,
      ).toEqual(expected.map((c) => `i${c.i}`));
      own.forEach((r, k) => expect(r.score).toBeCloseTo(expected[k]!.s, 5));
      // The fallbacks fill the rest of the page from the same candidates; the unknown id is never returned.
      expect(results.slice(0, own.length)).toEqual(own);
      expect(results.every((r) => candidates.includes(r.item_id) && r.item_id !== "never-seen")).toBe(true);
      expect(results.find((r) => r.item_id === "late")?.reason).not.toBe("collaborative");
      ranked += own.length;

      // Leaving the user's own items out, the kept list answers first: its candidates in its order, then the
      // other candidates by the same sums over the rows (scaled as the list's tail), which the mask computes.
      const lists = index.model!.userTop!;
      const u0 = index.people.find(`u${u}`);
      const kept = Array.from(lists.items.subarray(u0 * lists.perUser, u0 * lists.perUser + lists.counts[u0]!));
      const seen = new Set(rankOnIndex(index, { strategy: "recently-viewed", user_id: `u${u}`, limit: 100 }, 100).map((r) => r.item_id));
      const fromList = kept.map((j) => index.catalog.ids.name(j)).filter((id) => candidates.includes(id) && !seen.has(id));
      const rest =
        kept.length < lists.perUser ? [] : expected.map((c) => `i${c.i}`).filter((id) => !seen.has(id) && !kept.includes(index.catalog.ids.find(id)));
      const unseen = rankOnIndex(index, { strategy: "personalized", user_id: `u${u}`, limit: 100, candidates }, 100);
      expect(
        unseen.filter((r) => r.reason === "collaborative").map((r) => r.item_id),
        `u${u}, kept list`,
      ).toEqual([...fromList, ...rest]);
    }
    expect(ranked).toBeGreaterThan(100);
  });
});
