import { describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { foldIn } from "../../../workers/model/model.js";
import { trainModel } from "../../../workers/training/train.js";
import { trainingSet, userStrengths } from "../../../workers/training/trainingSet.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const view = (index: OrgIndex, user: string, item: number, atS: number) =>
  index.applyEvent({ userId: user, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS }, atS);

/** 300 users over 600 items in six topics, served by ALS (its closed form left out). */
function alsIndex(): OrgIndex {
  const index = new OrgIndex(1, 0);
  for (let i = 0; i < 600; i++) index.upsertItem(`i${i}`, "book", "active", {}, 0);
  for (let u = 0; u < 300; u++) for (let k = 0; k < 10; k++) view(index, `u${u}`, (u % 6) + 6 * ((u * 7 + k * 13) % 100), k);
  const { matrix, userVersions } = trainingSet(index);
  index.model = trainModel(matrix, userVersions, { ...DEFAULT_ALS, factors: 16, regularization: 5 });
  index.model.closedForm = undefined;
  return index;
}

describe("personalized fold-in of a trained user whose history moved on", () => {
  it("writes the solved vector into the user's row, with the version it stands for", () => {
    const index = alsIndex();
    const model = index.model!;
    const u = index.people.find("u1");
    const f = model.params.factors;
    const trained = model.userVectors.slice(u * f, u * f + f);
    for (let k = 0; k < 12; k++) view(index, "u1", 4 + 6 * (20 + k), 200 + k);
    expect(model.userVersions[u]).not.toBe(index.people.version[u]);

    const first = rankOnIndex(index, { strategy: "personalized", user_id: "u1", limit: 10 }).map((r) => r.item_id);
    const { items, strengths } = userStrengths(index, u);
    const expected = Float32Array.from(foldIn(model, items, strengths)!);
    expect(model.userVersions[u]).toBe(index.people.version[u]);
    expect([...model.userVectors.subarray(u * f, u * f + f)]).toEqual([...expected]);
    expect([...model.userVectors.subarray(u * f, u * f + f)]).not.toEqual([...trained]);
    // The next request reads the row as it is: the same answer.
    expect(rankOnIndex(index, { strategy: "personalized", user_id: "u1", limit: 10 }).map((r) => r.item_id)).toEqual(first);
  });

  it("leaves other users' rows as trained", () => {
    const index = alsIndex();
    const model = index.model!;
    const before = model.userVectors.slice();
    const u = index.people.find("u2");
    view(index, "u2", 5, 300);
    rankOnIndex(index, { strategy: "personalized", user_id: "u2", limit: 10 });
    const f = model.params.factors;
    for (let v = 0; v < model.userCount; v++) {
      if (v === u) continue;
      expect(model.userVectors.subarray(v * f, v * f + f)).toEqual(before.subarray(v * f, v * f + f));
    }
  });
});
