import { describe, expect, it } from "vitest";
import { TopK } from "../../../workers/model/topK.js";

/** The k best pairs by score, ties to the lower item: what TopK must keep and how it must order them. */
function reference(pairs: [number, number][], k: number): [number, number][] {
  return [...pairs].sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, k);
}

describe("TopK", () => {
  it("keeps the k best of many offers and sorts them best first, ties to the lower item id", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const k of [1, 2, 7, 21, 100]) {
      const pairs: [number, number][] = Array.from({ length: 1_000 }, (_, item) => [Math.round(random() * 50) / 10, item]);
      // Offered in a shuffled order, so that ties meet the heap in every order.
      for (let i = pairs.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [pairs[i], pairs[j]] = [pairs[j]!, pairs[i]!];
      }
      const offered = new TopK(k);
      const taken = new TopK(k);
      for (const [score, item] of pairs) {
        offered.offer(score, item);
        if (taken.wouldTake(score, item)) taken.take(item);
      }
      const want = reference(pairs, k);
      for (const top of [offered, taken]) {
        const { items, scores } = top.sorted();
        expect(Array.from(items)).toEqual(want.map((p) => p[1]));
        expect(Array.from(scores)).toEqual(want.map((p) => p[0]));
      }
    }
  });

  it("reads its kept pairs by position before sorting, and sorts fewer than k", () => {
    const top = new TopK(5);
    top.offer(0.5, 3);
    top.offer(2.5, 9);
    top.offer(1.5, 4);
    const kept = Array.from({ length: top.size }, (_, k) => [top.item(k), top.score(k)]);
    expect(kept.sort((a, b) => a[0]! - b[0]!)).toEqual([
      [3, 0.5],
      [4, 1.5],
      [9, 2.5],
    ]);
    expect(Array.from(top.sorted().items)).toEqual([9, 4, 3]);
    expect(top.size).toBe(3);
  });

  it("asks nothing of an offer until it is full, then the k-th best score", () => {
    const top = new TopK(2);
    expect(top.threshold()).toBe(-Infinity);
    top.offer(3, 1);
    expect(top.threshold()).toBe(-Infinity);
    top.offer(5, 2);
    expect(top.threshold()).toBe(3);
    top.offer(4, 3);
    expect(top.threshold()).toBe(4);
    // A tie at the threshold enters only with a lower item id.
    expect(top.wouldTake(4, 2)).toBe(true);
    expect(top.wouldTake(4, 7)).toBe(false);
  });
});
