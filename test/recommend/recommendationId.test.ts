import { describe, expect, it } from "vitest";
import { firstIdAt } from "../../src/recommend/analytics.js";
import { recommendationId } from "../../src/recommend/recommendationId.js";

describe("recommendationId", () => {
  it("is a version 7 UUID in the RFC 9562 variant", () => {
    for (let k = 0; k < 1_000; k++) expect(recommendationId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("carries its millisecond in the first 48 bits, so later ids sort after earlier ones", () => {
    const at = Date.UTC(2026, 10, 23, 2, 0, 0, 123);
    const id = recommendationId(at);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(recommendationId(at + 1) > recommendationId(at)).toBe(true);
    expect(recommendationId(at + 86_400_000) > id).toBe(true);
  });

  it("carries the right millisecond whether or not the id before it had the same one", () => {
    const at = Date.UTC(2026, 10, 23, 21, 0, 0, 0);
    const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    for (const ms of [at, at, at + 255, at + 256, at + 256, at, 2 ** 48 - 1, 0]) expect(msOf(recommendationId(ms))).toBe(ms);
  });

  it("sorts between the lowest id of its millisecond and that of the next (analytics finds rows by this)", () => {
    for (let k = 0; k < 1_000; k++) {
      const at = 1_600_000_000_000 + Math.floor(Math.random() * 1e12);
      const id = recommendationId(at);
      expect(id >= firstIdAt(at) && id < firstIdAt(at + 1), `${id} at ${at}`).toBe(true);
    }
  });

  it("differs between ids of the same millisecond", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => recommendationId(1_800_000_000_000)));
    expect(ids.size).toBe(10_000);
  });
});
