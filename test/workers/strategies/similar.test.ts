import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { withAndWithoutLists } from "../../helpers/rankOnIndex.js";
import { topicModel } from "../../helpers/topicModel.js";

const ITEMS = 1_200;
const TOPICS = 12;
const TYPES = 7;
const USERS = 1_500;

let index: OrgIndex;
beforeAll(() => {
  index = new OrgIndex(1, 0);
  // Interned in order, so item i of the catalog is column i of the matrix; types cut across topics.
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, `t${i % TYPES}`, "active", {}, 0);
  index.model = topicModel({ items: ITEMS, topics: TOPICS, users: USERS, seed: 5 });
  // Each item seen once, by a user of its own: a neighbour counts by its support, which no events would leave at 0
  // (and a result of score 0 is never shown).
  for (let i = 0; i < ITEMS; i++)
    index.applyEvent({ userId: `seen-${i}`, itemId: `i${i}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: 0 }, 10);
});

describe("similar with the model's neighbour lists", () => {
  it("ranks the same items as searching the vectors", () => {
    expect(index.model!.neighbours).toBeDefined();
    let same = 0;
    let total = 0;
    for (let item = 0; item < ITEMS; item += 37) {
      const both = withAndWithoutLists(index, { strategy: "similar", limit: 20, context_item_id: `i${item}` });
      const listed = both.listed.map((r) => r.item_id);
      const searched = both.searched.map((r) => r.item_id);
      expect(listed).toHaveLength(20);
      expect(listed.filter((id) => Number(id.slice(1)) % TOPICS === item % TOPICS).length).toBeGreaterThanOrEqual(18);
      same += listed.filter((id) => searched.includes(id)).length;
      total += searched.length;
    }
    // Only the cosines' rounding in the lists (under 1/8,000) may swap items that score alike at the edge.
    expect(same / total).toBeGreaterThan(0.98);
  });

  it("searches the vectors when a filter leaves fewer than half of the listed neighbours", () => {
    for (const item of [3, 250, 1_001]) {
      const { listed, searched } = withAndWithoutLists(index, {
        strategy: "similar",
        limit: 20,
        context_item_id: `i${item}`,
        item_type: `t${(item + 1) % TYPES}`,
      });
      // About a seventh of the 100 listed neighbours pass: the candidates must come from as wide a search as without lists.
      expect(listed).toEqual(searched);
      expect(listed).toHaveLength(20);
      expect(listed.every((r) => Number(r.item_id.slice(1)) % TYPES === (item + 1) % TYPES)).toBe(true);
    }
  });
});
