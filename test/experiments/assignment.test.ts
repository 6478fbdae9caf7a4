import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assignVariant, bucketOf } from "../../src/experiments/assignment.js";

const split = {
  id: "0195a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b",
  holdout: 0.1,
  variants: [
    { name: "A", share: 0.5 },
    { name: "B", share: 0.3 },
    { name: "C", share: 0.2 },
  ],
};
const users = Array.from({ length: 20_000 }, (_, i) => `user-${i}`);

describe("assignment", () => {
  it("places a user by the first 48 bits of SHA-256(experiment id, NUL, user id), as the README spells it", () => {
    for (const user of ["u-1", "anon-3f2a", "usér ☃"]) {
      const digest = createHash("sha256").update(`${split.id}\u0000${user}`, "utf8").digest();
      expect(bucketOf(split.id, user)).toBe(Number(BigInt(`0x${digest.subarray(0, 6).toString("hex")}`)) / 2 ** 48);
    }
  });

  it("gives a user the same variant on every call (nothing stored: the hash decides)", () => {
    for (const user of users.slice(0, 100)) expect(assignVariant(split, user)).toBe(assignVariant(split, user));
  });

  it("splits users by the shares, after the holdout, within sampling error", () => {
    const counts = new Map<string, number>();
    for (const user of users) counts.set(assignVariant(split, user), (counts.get(assignVariant(split, user)) ?? 0) + 1);
    const expected = { holdout: 0.1, A: 0.45, B: 0.27, C: 0.18 };
    for (const [name, share] of Object.entries(expected)) {
      // Four standard deviations of a binomial share at 20,000 users.
      expect(Math.abs(counts.get(name)! / users.length - share), name).toBeLessThan(4 * Math.sqrt((share * (1 - share)) / users.length));
    }
  });

  it("splits the same users independently in two experiments", () => {
    const other = {
      ...split,
      id: "0195a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5c",
      holdout: 0,
      variants: [
        { name: "A", share: 0.5 },
        { name: "B", share: 0.5 },
      ],
    };
    const first = { ...other, id: split.id };
    let same = 0;
    for (const user of users) if (assignVariant(first, user) === assignVariant(other, user)) same++;
    expect(Math.abs(same / users.length - 0.5)).toBeLessThan(0.02);
  });

  it("never assigns the holdout when there is none, and the last variant takes what rounding leaves", () => {
    const thirds = {
      id: split.id,
      holdout: 0,
      variants: [
        { name: "A", share: 1 / 3 },
        { name: "B", share: 1 / 3 },
        { name: "C", share: 1 / 3 },
      ],
    };
    const names = new Set(users.slice(0, 3000).map((u) => assignVariant(thirds, u)));
    expect([...names].sort()).toEqual(["A", "B", "C"]);
  });
});
