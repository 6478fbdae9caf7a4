import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { trainModel } from "../../../workers/training/train.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const ITEMS = 600;
const TOPICS = 6;
const USERS = 400;
const topicOf = (id: string) => Number(id.slice(1)) % TOPICS;

/** Users who each viewed ten items of one topic (user % TOPICS), and a model trained on them. */
function plantedIndex(): OrgIndex {
  const index = new OrgIndex(1, 0);
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "book", "active", {}, 0);
  for (let u = 0; u < USERS; u++) {
    for (let k = 0; k < 10; k++) {
      const item = (u % TOPICS) + TOPICS * ((u * 7 + k * 13) % (ITEMS / TOPICS));
      index.applyEvent({ userId: `u${u}`, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: k }, 10);
    }
  }
  const { matrix, userVersions } = trainingSet(index);
  // A light λ: ten events a user over 600 items is far sparser than the data the default was tuned on.
  index.model = trainModel(matrix, userVersions, { ...DEFAULT_ALS, factors: 16, regularization: 5 });
  return index;
}

const view = (index: OrgIndex, user: string, item: number, atS: number) =>
  index.applyEvent({ userId: user, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS }, atS);

describe.each([
  ["the closed form (EASE)", true],
  ["ALS with fold-in", false],
] as const)("personalized by %s", (_name, closedForm) => {
  let index: OrgIndex;
  beforeAll(() => {
    index = plantedIndex();
    expect(index.model!.closedForm).toBeDefined();
    if (!closedForm) index.model!.closedForm = undefined;
  });

  it("recommends a trained user unseen items of their topic", () => {
    const top = rankOnIndex(index, { strategy: "personalized", user_id: "u7", limit: 10 });
    expect(top.map((r) => r.reason)).toEqual(Array(10).fill("collaborative"));
    expect(top.filter((r) => topicOf(r.item_id) === 7 % TOPICS).length).toBeGreaterThanOrEqual(9);
  });

  it("answers a newcomer's first events at once, without retraining", () => {
    for (let k = 0; k < 3; k++) view(index, "newcomer", 2 + TOPICS * k, 100 + k);
    const top = rankOnIndex(index, { strategy: "personalized", user_id: "newcomer", limit: 10 });
    expect(top.filter((r) => topicOf(r.item_id) === 2).length).toBeGreaterThanOrEqual(9);
  });

  it("follows a user whose taste changed: their new topic enters the top at once", () => {
    const fromTopic4 = () =>
      rankOnIndex(index, { strategy: "personalized", user_id: "u1", limit: 10 }).filter((r) => topicOf(r.item_id) === 4).length;
    expect(fromTopic4()).toBe(0);
    for (let k = 0; k < 12; k++) view(index, "u1", 4 + TOPICS * (20 + k), 200 + k);
    // The closed form weighs the latest items more (6-7 of 10 measured); ALS folds all of them in alike (4).
    expect(fromTopic4()).toBeGreaterThanOrEqual(closedForm ? 5 : 3);
  });
});
