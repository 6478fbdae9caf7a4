import { beforeAll, describe, expect, it } from "vitest";
import { toRankRequest } from "../../../src/recommend/schema.js";
import { validateRecommend } from "../../../src/recommend/validate.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { rank } from "../../../workers/strategies/index.js";
import { DEFAULT_ALS, type SparseRows } from "../../../workers/training/als.js";
import { seededRandom } from "../../../workers/training/linalg.js";
import { trainModel } from "../../../workers/training/train.js";

const ITEMS = 1_200;
const TOPICS = 12;
const TYPES = 7;
const USERS = 1_500;

/** Users who each engage with a dozen items of one topic (item % TOPICS). */
function topicMatrix(): SparseRows {
  const random = seededRandom(5);
  const indptr = new Int32Array(USERS + 1);
  const indices: number[] = [];
  for (let u = 0; u < USERS; u++) {
    const row = new Set<number>();
    while (row.size < 12) row.add((u % TOPICS) + TOPICS * Math.floor(random() * (ITEMS / TOPICS)));
    indices.push(...[...row].sort((a, b) => a - b));
    indptr[u + 1] = indices.length;
  }
  return { rows: USERS, cols: ITEMS, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
}

/** The results of a `similar` request, as the response carries them. */
function similar(index: OrgIndex, body: Record<string, unknown>): Array<{ item_id: string; score: number }> {
  const r = rank(index, toRankRequest(1, validateRecommend({ strategy: "similar", limit: 20, ...body })), 0);
  return JSON.parse(Buffer.from(r.results).toString("utf8")) as Array<{ item_id: string; score: number }>;
}

let index: OrgIndex;
beforeAll(() => {
  index = new OrgIndex(1, 0);
  // Interned in order, so item i of the catalog is column i of the matrix; types cut across topics.
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, `t${i % TYPES}`, "active", {}, 0);
  index.model = trainModel(topicMatrix(), new Int32Array(USERS), { ...DEFAULT_ALS, factors: 16, iterations: 4 });
});

describe("similar with the model's neighbour lists", () => {
  it("ranks the same items as searching the vectors", () => {
    expect(index.model!.neighbours).toBeDefined();
    const table = index.model!.neighbours;
    let same = 0;
    let total = 0;
    for (let item = 0; item < ITEMS; item += 37) {
      const listed = similar(index, { context_item_id: `i${item}` }).map((r) => r.item_id);
      index.model!.neighbours = undefined;
      const searched = similar(index, { context_item_id: `i${item}` }).map((r) => r.item_id);
      index.model!.neighbours = table;
      expect(listed).toHaveLength(20);
      expect(listed.filter((id) => Number(id.slice(1)) % TOPICS === item % TOPICS).length).toBeGreaterThanOrEqual(18);
      same += listed.filter((id) => searched.includes(id)).length;
      total += searched.length;
    }
    // Only the cosines' rounding in the lists (under 1/8,000) may swap items that score alike at the edge.
    expect(same / total).toBeGreaterThan(0.98);
  });

  it("searches the vectors when a filter leaves fewer than half of the listed neighbours", () => {
    const table = index.model!.neighbours;
    for (const item of [3, 250, 1_001]) {
      const body = { context_item_id: `i${item}`, item_type: `t${(item + 1) % TYPES}` };
      const listed = similar(index, body);
      index.model!.neighbours = undefined;
      const searched = similar(index, body);
      index.model!.neighbours = table;
      // About a seventh of the 100 listed neighbours pass: the candidates must come from as wide a search as without lists.
      expect(listed).toEqual(searched);
      expect(listed).toHaveLength(20);
      expect(listed.every((r) => Number(r.item_id.slice(1)) % TYPES === (item + 1) % TYPES)).toBe(true);
    }
  });
});
