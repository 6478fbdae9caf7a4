import { describe, expect, it } from "vitest";
import { compare, erfc, pooledZTest, wilson } from "../../src/experiments/statistics.js";
import { seededRandom } from "../../workers/model/seededRandom.js";

/** Successes among n trials of probability p. */
function binomial(random: () => number, n: number, p: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) if (random() < p) x++;
  return x;
}

describe("wilson", () => {
  it("gives the Wilson score interval of textbook cases", () => {
    // 400 of 4,000: (0.0911, 0.1097); 0 of 10: (0, 0.2775); 10 of 10: (0.7225, 1).
    expect(wilson(400, 4000)).toEqual({ rate: 0.1, low: expect.closeTo(0.091083, 5), high: expect.closeTo(0.109684, 5) });
    expect(wilson(0, 10)).toEqual({ rate: 0, low: 0, high: expect.closeTo(0.277533, 5) });
    expect(wilson(10, 10)).toEqual({ rate: 1, low: expect.closeTo(0.722467, 5), high: 1 });
  });

  it("says nothing is known with no trials: rate 0, interval [0, 1]", () => {
    expect(wilson(0, 0)).toEqual({ rate: 0, low: 0, high: 1 });
  });
});

describe("the two-proportion z-test and the difference's interval", () => {
  it("computes the pooled two-sided p-value of a worked case", () => {
    // 480/4000 against 400/4000: pooled 0.11, z = 0.02 / sqrt(0.11 × 0.89 × 2/4000) = 2.859, p = 0.00425.
    expect(pooledZTest(480, 4000, 400, 4000)).toBeCloseTo(0.004255, 5);
    expect(pooledZTest(400, 4000, 480, 4000)).toBeCloseTo(0.004255, 5);
  });

  it("answers p = 1 when nothing tells the two apart (no trials, or no successes anywhere)", () => {
    expect(pooledZTest(0, 0, 5, 10)).toBe(1);
    expect(pooledZTest(0, 50, 0, 50)).toBe(1);
    expect(pooledZTest(50, 50, 50, 50)).toBe(1);
  });

  it("gives erfc within 1.5e-7 of known values", () => {
    expect(erfc(0)).toBeCloseTo(1, 6);
    expect(erfc(1)).toBeCloseTo(0.157299207, 6);
    expect(erfc(1.959963984540054 / Math.SQRT2)).toBeCloseTo(0.05, 6);
    expect(erfc(-1)).toBeCloseTo(1.842700793, 6);
  });

  it("brackets the difference by Newcombe's hybrid score interval, which excludes 0 exactly when the effect is clear", () => {
    const clear = compare(120, 1000, 60, 1000);
    expect(clear.difference).toBeCloseTo(0.06, 10);
    expect(clear.low).toBeGreaterThan(0);
    expect(clear.high).toBeGreaterThan(clear.difference);
    expect(clear.significant).toBe(true);
    const none = compare(61, 1000, 60, 1000);
    expect(none.low).toBeLessThan(0);
    expect(none.high).toBeGreaterThan(0);
    expect(none.significant).toBe(false);
  });

  it("finds a true lift (10 % → 15 % over 2,000 users each) in nearly every one of 500 seeded simulations", () => {
    const random = seededRandom(7);
    let found = 0;
    for (let s = 0; s < 500; s++) {
      if (compare(binomial(random, 2000, 0.15), 2000, binomial(random, 2000, 0.1), 2000).significant) found++;
    }
    // The power of this test at these sizes is above 0.99.
    expect(found / 500).toBeGreaterThan(0.97);
  });

  it("claims a winner between equal variants about 5 % of the time over 2,000 seeded simulations (false positives at 95 %)", () => {
    const random = seededRandom(20_261_128);
    const runs = 2000;
    let claimed = 0;
    for (let s = 0; s < runs; s++) {
      const n = 500 + Math.floor(random() * 1500);
      const p = 0.02 + random() * 0.2;
      if (compare(binomial(random, n, p), n, binomial(random, n, p), n).significant) claimed++;
    }
    const rate = claimed / runs;
    console.log(`false-positive rate over ${runs} A/A simulations: ${(rate * 100).toFixed(2)} % (nominal 5 %)`);
    expect(rate).toBeGreaterThan(0.02);
    expect(rate).toBeLessThan(0.09);
  });
});
