import { describe, expect, it } from "vitest";
import { PendingRequests } from "../../src/recommend/pendingRequests.js";

describe("PendingRequests", () => {
  it("hands out increasing ids and gives each value back once", () => {
    const p = new PendingRequests<string>();
    const a = p.add("a", 10);
    const b = p.add("b", 10);
    expect(b).toBe(a + 1);
    expect(p.take(b)).toBe("b");
    expect(p.take(b)).toBeUndefined();
    expect(p.take(a)).toBe("a");
    expect(p.take(a + 7)).toBeUndefined();
    expect(p.take(0)).toBeUndefined();
  });

  it("expires only what is past its deadline, oldest first, skipping what was taken", () => {
    const p = new PendingRequests<string>();
    const ids = ["a", "b", "c", "d"].map((v, k) => p.add(v, 10 + k));
    p.take(ids[1]!);
    const expired: string[] = [];
    p.expire(12, (v) => expired.push(v));
    expect(expired).toEqual(["a", "c"]);
    expect(p.take(ids[0]!)).toBeUndefined();
    expect(p.take(ids[2]!)).toBeUndefined();
    expect(p.take(ids[3]!)).toBe("d");
  });

  it("counts what waits: taken, expired and drained values leave the count, a second take does not", () => {
    const p = new PendingRequests<string>();
    const ids = ["a", "b", "c", "d"].map((v, k) => p.add(v, 10 + k));
    expect(p.size).toBe(4);
    p.take(ids[2]!);
    p.take(ids[2]!);
    expect(p.size).toBe(3);
    p.expire(11, () => undefined);
    expect(p.size).toBe(1);
    p.drain(() => undefined);
    expect(p.size).toBe(0);
  });

  it("keeps every value and deadline as it grows past its first size, with values taken out of order", () => {
    const p = new PendingRequests<number>();
    const ids: number[] = [];
    for (let k = 0; k < 5_000; k++) {
      ids.push(p.add(k, k));
      if (k % 3 === 0) expect(p.take(ids[k]!)).toBe(k); // answered at once: the ring keeps the rest in place
    }
    expect(p.take(ids[4_999]!)).toBe(4_999);
    const expired: number[] = [];
    p.expire(2_000, (v) => expired.push(v));
    expect(expired).toEqual(Array.from({ length: 2_001 }, (_, k) => k).filter((k) => k % 3 !== 0));
    const rest: number[] = [];
    p.drain((v) => rest.push(v));
    expect(rest).toEqual(Array.from({ length: 4_999 - 2_001 }, (_, k) => k + 2_001).filter((k) => k % 3 !== 0));
    expect(p.take(ids[4_000]!)).toBeUndefined();
  });
});
