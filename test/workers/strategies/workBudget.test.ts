import { beforeAll, describe, expect, it } from "vitest";
import type { RankRequest } from "../../../src/wire/rank.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { SKETCH_SIZE } from "../../../workers/index/tokenSketch.js";
import { rank } from "../../../workers/strategies/rank.js";
import { work, WORK_BUDGET } from "../../../workers/strategies/workBudget.js";

const ITEMS = 2_001;
const TAGS = 999;
/** Most probes one item may take: 20 filters of 100 values (the recommend schema's limits). */
const PROBES_PER_ITEM_MAX = 20 * 100;

const request = (r: Partial<RankRequest>): RankRequest => ({
  org: 1,
  strategy: "similar",
  userId: undefined,
  contextItemId: undefined,
  contextItemIds: undefined,
  candidates: undefined,
  diversity: undefined,
  maxPer: undefined,
  itemType: undefined,
  filters: undefined,
  excludeItemIds: undefined,
  excludeSeen: false,
  fields: undefined,
  limit: 100,
  page: 1,
  ...r,
});

let index: OrgIndex;
beforeAll(() => {
  // The hostile catalog, made worse: 999 tags per item drawn from a pool of 1,500, so that every item
  // shares hundreds of tokens with every other and every posting list is long.
  index = new OrgIndex(1, 0);
  for (let i = 0; i < ITEMS; i++) {
    const tags = Array.from({ length: TAGS }, (_, k) => `tag-${(i * 7 + k) % 1_500}`);
    index.upsertItem(`i${i}`, "hostile", "active", { tags }, 1_000 + i);
  }
});

describe("a rank request's work budget", () => {
  it("bounds the similarity work of `similar` on items of 999 shared tags, and still answers", () => {
    const result = rank(index, request({ contextItemId: "i0" }), 10_000);
    expect(result.count).toBe(100);
    expect(work.comparisons.n).toBeGreaterThan(0);
    expect(work.comparisons.n).toBeLessThanOrEqual(WORK_BUDGET.comparisonSteps + 2 * SKETCH_SIZE);
  });

  it("bounds the filter probes of a request whose any-of filters every item fails", () => {
    const missing = Array.from({ length: 100 }, (_, k) => `missing-${k}`);
    const filters: Record<string, string[]> = { tags: missing };
    for (let f = 1; f < 20; f++) filters[`tags-${f}`] = missing;
    // new-arrivals scores every item: with a filter that empties its top it scans the whole catalog.
    const result = rank(index, request({ strategy: "new-arrivals", filters, page: 100 }), 10_000);
    expect(result.count).toBe(0);
    expect(work.filterProbes).toBeGreaterThanOrEqual(WORK_BUDGET.filterProbes);
    expect(work.filterProbes).toBeLessThanOrEqual(WORK_BUDGET.filterProbes + PROBES_PER_ITEM_MAX);
  });

  it("starts each request with the whole budget", () => {
    const tags = ["tag-5", "missing"];
    const first = rank(index, request({ strategy: "new-arrivals", filters: { tags } }), 10_000);
    expect(first.count).toBe(100);
    expect(work.filterProbes).toBeLessThan(WORK_BUDGET.filterProbes);
  });
});
