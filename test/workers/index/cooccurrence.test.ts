import { describe, expect, it } from "vitest";
import { CoOccurrence } from "../../../workers/index/cooccurrence.js";

/** Every neighbour of `item` with its count, whatever its score. */
function counts(co: CoOccurrence, item: number): Map<number, number> {
  const out = new Map<number, number>();
  co.forEachNeighbour(item, (b, _score, count) => out.set(b, count));
  return out;
}

/** A co-occurrence table where every item was seen by a few users out of many, so that pairs score positive. */
function table(items: number): CoOccurrence {
  const co = new CoOccurrence();
  for (let i = 0; i < items; i++) for (let k = 0; k < 3; k++) co.countItem(i);
  for (let k = 0; k < 10_000; k++) co.countItem(items);
  return co;
}

describe("CoOccurrence", () => {
  it("counts a pair on both items, once per sighting", () => {
    const co = table(3);
    co.addPair(0, 1);
    co.addPair(1, 0);
    co.addPair(0, 2);
    expect(counts(co, 0)).toEqual(
      new Map([
        [1, 2],
        [2, 1],
      ]),
    );
    expect(counts(co, 1)).toEqual(new Map([[0, 2]]));
    expect(counts(co, 2)).toEqual(new Map([[0, 1]]));
  });

  it("keeps 64 neighbours per item; a newcomer displaces a neighbour seen only once", () => {
    const co = table(200);
    for (let b = 1; b <= 64; b++) {
      co.addPair(0, b);
      if (b !== 5 && b !== 9) co.addPair(0, b); // every neighbour but 5 and 9 seen twice
    }
    co.addPair(0, 100);
    expect(co.neighbourCount(0)).toBe(64);
    let row = counts(co, 0);
    expect(row.has(5)).toBe(false);
    expect(row.get(100)).toBe(1);
    expect(row.get(9)).toBe(1);
    co.addPair(0, 100); // now seen twice: the next newcomer takes 9's place
    co.addPair(0, 101);
    row = counts(co, 0);
    expect([row.get(100), row.get(101), row.has(9)]).toEqual([2, 1, false]);
    co.addPair(0, 102); // only 101 is left with one sighting
    row = counts(co, 0);
    expect([row.has(101), row.get(102)]).toEqual([false, 1]);
  });

  it("lets in a neighbour that keeps coming back among many one-off pairs, once the row is full", () => {
    const co = table(2_000);
    for (let b = 1; b <= 64; b++) co.addPair(0, b); // a full row of single sightings
    let noise = 100;
    for (let round = 0; round < 20; round++) {
      for (let k = 0; k < 9; k++) co.addPair(0, noise++);
      co.addPair(0, 1_500); // seen again every tenth new pair
    }
    expect(counts(co, 0).get(1_500)).toBeGreaterThanOrEqual(10);
    expect(co.neighbourCount(0)).toBe(64);
  });

  it("drops a newcomer when every neighbour was seen more than once", () => {
    const co = table(200);
    for (let b = 1; b <= 64; b++) for (let k = 0; k < 2; k++) co.addPair(0, b);
    co.addPair(0, 150);
    const row = counts(co, 0);
    expect(row.size).toBe(64);
    expect(row.has(150)).toBe(false);
    expect(counts(co, 150).get(0)).toBe(1); // the other direction has room
  });

  it("keeps the same rows as a plain list per item under 60,000 random pairs, repeats and replacements included", () => {
    const items = 300;
    const co = table(items);
    const reference = Array.from({ length: items }, () => [] as Array<[number, number]>);
    /** Per row, where the search for a single sighting to displace starts: round the row, after the last one. */
    const cursor = new Array<number>(items).fill(0);
    const bump = (a: number, b: number) => {
      const row = reference[a]!;
      const found = row.find(([key]) => key === b);
      if (found) found[1] = Math.min(found[1] + 1, 0xffff);
      else if (row.length < 64) row.push([b, 1]);
      else {
        const order = [...row.keys()].map((k) => (cursor[a]! + k) % 64);
        const weakest = order.find((k) => row[k]![1] <= 1);
        if (weakest !== undefined) {
          row[weakest]![0] = b;
          cursor[a] = (weakest + 1) % 64;
        }
      }
    };
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let k = 0; k < 60_000; k++) {
      const a = Math.floor(random() * items);
      // Half the pairs among a few close items (repeated), half anywhere (mostly new, forcing replacements).
      const b = random() < 0.5 ? (a + 1 + Math.floor(random() * 8)) % items : Math.floor(random() * items);
      if (a === b) continue;
      co.addPair(a, b);
      bump(a, b);
      bump(b, a);
    }
    for (let a = 0; a < items; a++) expect(counts(co, a), `item ${a}`).toEqual(new Map(reference[a]));
  });
});
