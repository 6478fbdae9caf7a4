import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { withAndWithoutLists } from "../../helpers/rankOnIndex.js";
import { topicModel } from "../../helpers/topicModel.js";

const ITEMS = 1_200;
const TOPICS = 12;
const USERS = 1_500;
const VIEWERS = 24;

const topicOf = (id: string) => Number(id.slice(1)) % TOPICS;

let index: OrgIndex;
beforeAll(() => {
  index = new OrgIndex(1, 0);
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "book", "active", {}, 0);
  index.model = topicModel({ items: ITEMS, topics: TOPICS, users: USERS, seed: 9 });
  // Each item seen once, by a user of its own: a neighbour counts by its support, which no events would leave at 0
  // (and a result of score 0 is never shown).
  for (let i = 0; i < ITEMS; i++)
    index.applyEvent({ userId: `seen-${i}`, itemId: `i${i}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 0 }, 10);
  // Each viewer looked at four items of one topic, after the model was trained.
  for (let v = 0; v < VIEWERS; v++) {
    for (let k = 0; k < 4; k++) {
      const item = (v % TOPICS) + TOPICS * ((v * 7 + k * 13) % (ITEMS / TOPICS));
      index.applyEvent({ userId: `v${v}`, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: k }, 10);
    }
  }
});

describe("because-you-viewed with the model's neighbour lists", () => {
  it("ranks the same items as searching the vectors around each viewed item", () => {
    expect(index.model!.neighbours).toBeDefined();
    let same = 0;
    let total = 0;
    for (let v = 0; v < VIEWERS; v++) {
      const both = withAndWithoutLists(index, { strategy: "because-you-viewed", limit: 20, user_id: `v${v}` });
      const listed = both.listed.map((r) => r.item_id);
      const searched = both.searched.map((r) => r.item_id);
      expect(listed).toHaveLength(20);
      expect(listed.filter((id) => topicOf(id) === v % TOPICS).length).toBeGreaterThanOrEqual(18);
      same += listed.filter((id) => searched.includes(id)).length;
      total += searched.length;
    }
    // Only the cosines' rounding in the lists (under 1/8,000) may swap items that score alike at the edge.
    expect(same / total).toBeGreaterThan(0.98);
  });
});
