import { beforeAll, describe, expect, it } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { unitVector } from "../../../workers/vectors/search.js";
import { rerank, PAIRS_MAX, type Variety } from "../../../workers/strategies/diversify.js";
import type { Ranking } from "../../../workers/strategies/types.js";
import type { ValueGroup } from "../../../workers/strategies/valueGroups.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";
import { topicModel } from "../../helpers/topicModel.js";

/** Items 0 … n−1, best first, scores falling from 1; item i's brand is brandOf(i). */
function ranking(n: number): Ranking {
  const items = Array.from({ length: n }, (_, i) => i);
  return { items, scores: items.map((i) => 1 - i / (2 * n)), reasons: items.map((i) => `r${i}`) };
}

const brandGroups =
  (brandOf: (i: number) => string | undefined) =>
  (i: number): readonly ValueGroup[] => {
    const b = brandOf(i);
    return b === undefined ? [] : [{ attribute: 0, key: `0:${b}` }];
  };

function variety(v: Partial<Variety>): Variety {
  return {
    limit: 10,
    want: 11,
    diversity: 0,
    caps: [],
    reach: 100,
    window: 30,
    pairsMax: PAIRS_MAX,
    eager: false,
    similarity: () => 0,
    groups: () => [],
    ...v,
  };
}

/** Page p (1-based) of a re-ranked list of `limit` places a page. */
const pageOf = (r: Ranking, p: number, limit: number) => Array.from(r.items).slice((p - 1) * limit, p * limit);

describe("rerank: max_per", () => {
  // Nine items in ten are brand A; every tenth is brand B, C, … in turn; every 7th has no brand at all.
  const brandOf = (i: number) => (i % 7 === 6 ? undefined : i % 10 === 9 ? `B${Math.floor(i / 10)}` : "A");

  it("places at most n results of a value on each page, filling from further candidates, items without the attribute unlimited", () => {
    const r = rerank(ranking(400), variety({ want: 31, caps: [2], groups: brandGroups(brandOf) }));
    expect(r.items.length).toBe(31);
    for (let p = 1; p <= 3; p++) {
      const page = pageOf(r, p, 10);
      expect(page).toHaveLength(10);
      expect(page.filter((i) => brandOf(i) === "A").length).toBeLessThanOrEqual(2);
    }
    // The two best A items come first on page 1, then the best of the rest in their order (6 has no brand).
    expect(pageOf(r, 1, 10).slice(0, 3)).toEqual([0, 1, 6]);
    expect(new Set(Array.from(r.items)).size).toBe(31);
    // Each item keeps its score and reason.
    for (let k = 0; k < r.items.length; k++) expect((r.reasons as string[])[k]).toBe(`r${r.items[k]}`);
  });

  it("ends the results (a short last page) when no candidate within reach is allowed, and never exceeds a cap", () => {
    // 25 A items, then 5 others: a page of 10 capped at 2 A holds 7.
    const brand = (i: number) => (i < 25 ? "A" : `O${i}`);
    const r = rerank(ranking(30), variety({ want: 21, caps: [2], groups: brandGroups(brand) }));
    expect(Array.from(r.items)).toEqual([0, 1, 25, 26, 27, 28, 29]);
  });

  it("counts an array attribute toward each of its values", () => {
    // Items hold two colours each, from a cycle of three: a cap of 1 per colour lets at most one item of each pair.
    const colours = ["red", "green", "blue"];
    const groups = (i: number): ValueGroup[] => [
      { attribute: 0, key: `0:${colours[i % 3]}` },
      { attribute: 0, key: `0:${colours[(i + 1) % 3]}` },
    ];
    const r = rerank(ranking(50), variety({ want: 11, caps: [1], groups }));
    // Item 0 (red, green) takes both; no other pair avoids them both: the page holds one item.
    expect(Array.from(r.items)).toEqual([0]);
  });

  it("places page 2 asked alone as page 1 asked alone did, then continues it without repeating an item", () => {
    const groups = brandGroups(brandOf);
    const n1 = 11 + 100;
    const n2 = 21 + 100;
    const first = rerank(ranking(n1), variety({ want: 11, caps: [2], groups }));
    const second = rerank(ranking(n2), variety({ want: 21, caps: [2], groups }));
    expect(pageOf(second, 1, 10)).toEqual(pageOf(first, 1, 10));
    expect(pageOf(second, 2, 10).filter((i) => pageOf(first, 1, 10).includes(i))).toEqual([]);
  });
});

describe("rerank: diversity", () => {
  // Three groups, ranked so that the top is all group 0: items 0-29 group 0, then 1, 2, 0, 1, 2 …
  const groupOf = (i: number) => (i < 30 ? 0 : i % 3);
  const similarity = (a: number, b: number) => (groupOf(a) === groupOf(b) ? 1 : 0);

  it("leaves the order as it is at 0 (with no caps)", () => {
    const r = rerank(ranking(200), variety({ want: 41, diversity: 0, similarity }));
    expect(Array.from(r.items)).toEqual(Array.from({ length: 41 }, (_, i) => i));
  });

  it("at 1 spreads each page over the groups, the best of each first; at 0.5 still more than one group", () => {
    const full = rerank(ranking(200), variety({ want: 11, diversity: 1, similarity, window: 60, reach: 60 }));
    expect(pageOf(full, 1, 10).slice(0, 3)).toEqual([0, 31, 32]);
    expect(new Set(pageOf(full, 1, 10).map(groupOf)).size).toBe(3);
    const half = rerank(ranking(200), variety({ want: 11, diversity: 0.5, similarity, window: 60, reach: 60 }));
    expect(new Set(pageOf(half, 1, 10).map(groupOf)).size).toBeGreaterThan(1);
  });

  it("compares items of the same page only: each page starts with the best left", () => {
    const r = rerank(ranking(200), variety({ want: 21, diversity: 1, similarity, window: 60, reach: 60 }));
    const second = pageOf(r, 2, 10);
    const left = Array.from({ length: 200 }, (_, i) => i).filter((i) => !pageOf(r, 1, 10).includes(i));
    expect(second[0]).toBe(left[0]);
  });

  it("weighs only candidates within reach of the place, so a page asked alone places the pages before it alike", () => {
    const v = { diversity: 0.7, similarity, window: 30, reach: 30 };
    const p1 = rerank(ranking(11 + 30), variety({ ...v, want: 11 }));
    const p3 = rerank(ranking(31 + 30), variety({ ...v, want: 31 }));
    expect(Array.from(p3.items).slice(0, 11)).toEqual(Array.from(p1.items));
    expect(new Set(Array.from(p3.items)).size).toBe(31);
  });

  it("compares at most pairsMax pairs, then places by relevance alone", () => {
    let compared = 0;
    const counting = (a: number, b: number) => {
      compared++;
      return similarity(a, b);
    };
    const r = rerank(ranking(1_200), variety({ limit: 100, want: 1_001, diversity: 1, similarity: counting, window: 150, reach: 150, eager: true }));
    expect(compared).toBe(PAIRS_MAX);
    expect(r.items.length).toBe(1_001);
    expect(new Set(Array.from(r.items)).size).toBe(1_001);
  });
});

describe("rerank: pairs compared", () => {
  /** A fixed similarity in [0, 1) per pair of items, of either order; some pairs alike, most not. */
  const noise = (a: number, b: number) => {
    const x = Math.sin((Math.min(a, b) + 1) * 12.9898 + (Math.max(a, b) + 1) * 78.233) * 43_758.5453;
    return (x - Math.floor(x)) ** 3;
  };

  it("places every page as comparing every counted pair would, comparing fewer pairs", () => {
    for (const [limit, want, diversity, caps] of [
      [10, 31, 0.3, []],
      [20, 41, 0.5, []],
      [20, 21, 1, [2]],
      [100, 301, 0.5, []],
      [100, 201, 0.9, [3]],
    ] as const) {
      const window = Math.min(150, Math.max(30, 3 * limit));
      let lazy = 0;
      let eager = 0;
      const v = { limit, want, diversity, window, reach: window, caps: [...caps], groups: brandGroups((i) => `b${i % 7}`), pairsMax: 20_000 };
      const some = rerank(ranking(want + window), variety({ ...v, similarity: (a, b) => (lazy++, noise(a, b)) }));
      const every = rerank(ranking(want + window), variety({ ...v, eager: true, similarity: (a, b) => (eager++, noise(a, b)) }));
      expect(Array.from(some.items)).toEqual(Array.from(every.items));
      expect(lazy).toBeLessThan(eager);
    }
  });
});

describe("diversity through rank(), by the model's vectors alone", () => {
  const ITEMS = 600;
  const TOPICS = 6;
  let index: OrgIndex;
  /** Items of topic 0 (i % 6 = 0) are the 30 most popular, then the rest by number; no item has attributes. */
  const popularity = (i: number) => (i % TOPICS === 0 && i < 180 ? 10_000 - i : 5_000 - i);
  beforeAll(() => {
    index = new OrgIndex(1, 0);
    for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "product", "active", {}, 0);
    index.model = topicModel({ items: ITEMS, topics: TOPICS, users: 900, seed: 3 });
    for (let i = 0; i < ITEMS; i++)
      index.applyEvent(
        { userId: `v${i}`, itemId: `i${i}`, family: "engagement", name: "view", weight: popularity(i), previousUserId: null, atS: 0 },
        10,
      );
  });

  const meanCosine = (ids: string[]) => {
    const vectors = ids.map((id) => unitVector(index.model!, Number(id.slice(1)))!);
    let sum = 0;
    let pairs = 0;
    for (let a = 0; a < vectors.length; a++)
      for (let b = a + 1; b < vectors.length; b++) {
        sum += vectors[a]!.reduce((s, x, k) => s + x * vectors[b]![k]!, 0);
        pairs++;
      }
    return sum / pairs;
  };

  it("spreads a page over topics the plain ranking keeps for later, and leaves it as it is at 0", () => {
    const page = (diversity?: number) =>
      rankOnIndex(index, { strategy: "popular", limit: 10, ...(diversity === undefined ? {} : { diversity }) }).map((r) => r.item_id);
    const plain = page();
    expect(plain.every((id) => Number(id.slice(1)) % TOPICS === 0)).toBe(true);
    expect(page(0)).toEqual(plain);
    const varied = page(1);
    expect(varied[0]).toBe(plain[0]);
    expect(new Set(varied.map((id) => Number(id.slice(1)) % TOPICS)).size).toBeGreaterThanOrEqual(4);
    expect(meanCosine(varied)).toBeLessThan(meanCosine(plain) - 0.3);
  });
});
