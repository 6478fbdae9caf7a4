import { describe, expect, it } from "vitest";
import { bottomK, exactJaccard, SKETCH_SIZE, sketchJaccard } from "../../../workers/index/tokenSketch.js";
import { hashPair32 } from "../../../workers/index/stringHash.js";

/** The sketch of a set of token texts, as AttributeIndex makes it. */
function sketch(tokens: Iterable<string>): { hashes: Uint32Array; whole: boolean } {
  const all = Uint32Array.from([...tokens].map((t) => hashPair32(1, "tags", t)));
  const n = bottomK(all, all.length, SKETCH_SIZE);
  return { hashes: all.slice(0, n), whole: n < SKETCH_SIZE };
}

function estimate(a: Iterable<string>, b: Iterable<string>, steps = { n: 0 }): number {
  const x = sketch(a);
  const y = sketch(b);
  return sketchJaccard(x.hashes, 0, x.hashes.length, y.hashes, 0, y.hashes.length, x.whole && y.whole, SKETCH_SIZE, steps);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => `v${from + k}`);

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("bottom-k token sketches", () => {
  it("keeps the k smallest distinct hashes, ascending", () => {
    const hashes = Uint32Array.from([9, 3, 3, 7, 1, 9, 5]);
    const n = bottomK(hashes, hashes.length, 3);
    expect(Array.from(hashes.subarray(0, n))).toEqual([1, 3, 5]);
  });

  it("gives exactly the Jaccard similarity of the readable twin for sets below k tokens", () => {
    const next = random(7);
    for (let trial = 0; trial < 500; trial++) {
      const a = new Set(Array.from({ length: 1 + Math.floor(next() * 40) }, () => `v${Math.floor(next() * 60)}`));
      const b = new Set(Array.from({ length: 1 + Math.floor(next() * 40) }, () => `v${Math.floor(next() * 60)}`));
      if (a.size >= SKETCH_SIZE || b.size >= SKETCH_SIZE) continue;
      expect(estimate(a, b)).toBeCloseTo(exactJaccard(a, b), 12);
    }
  });

  it("estimates the Jaccard similarity of large sets within a few standard errors", () => {
    // Pairs of 1,000-token sets overlapping by known amounts: J = overlap / (2,000 - overlap).
    let sumError = 0;
    let pairs = 0;
    for (const overlap of [0, 100, 333, 500, 667, 900, 1_000]) {
      for (let shift = 0; shift < 20; shift++) {
        const base = shift * 10_000;
        const a = new Set(range(base, base + 1_000));
        const b = new Set(range(base + 1_000 - overlap, base + 2_000 - overlap));
        const exact = exactJaccard(a, b);
        const error = Math.abs(estimate(a, b) - exact);
        // Standard error sqrt(J(1 - J)/k) is at most 1/16; four of them bound one estimate.
        expect(error).toBeLessThanOrEqual(4 * Math.sqrt((exact * (1 - exact)) / SKETCH_SIZE) + 1e-9);
        sumError += error;
        pairs++;
      }
    }
    expect(sumError / pairs).toBeLessThan(0.04);
  });

  it("compares two sketches in at most 2k merge steps however many tokens the sets hold", () => {
    const steps = { n: 0 };
    estimate(range(0, 999), range(500, 1_499), steps);
    expect(steps.n).toBeLessThanOrEqual(SKETCH_SIZE);
    steps.n = 0;
    estimate(range(0, 63), range(63, 126), steps);
    expect(steps.n).toBeLessThanOrEqual(2 * SKETCH_SIZE);
  });

  it("scores disjoint sets 0 and equal sets 1, large or small", () => {
    expect(estimate(range(0, 5_000), range(5_000, 10_000))).toBe(0);
    expect(estimate(range(0, 5_000), range(0, 5_000))).toBe(1);
    expect(estimate(range(0, 3), range(0, 3))).toBe(1);
  });
});
