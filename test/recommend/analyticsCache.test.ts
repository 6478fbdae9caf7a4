import { describe, expect, it } from "vitest";
import { SETTLED_MS, settledDays } from "../../src/recommend/analyticsCache.js";
import { bucketStarts } from "../../src/recommend/analyticsSeries.js";

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

describe("the days analytics keep", () => {
  it("keeps only whole days of the period that ended at least SETTLED_MS ago", () => {
    const now = Date.parse("2025-03-10T12:00:00Z");
    expect(settledDays(at("2025-03-01T06:00:00Z"), at("2025-03-05T18:00:00Z"), now)).toEqual({
      start: Date.parse("2025-03-02T00:00:00Z"),
      end: Date.parse("2025-03-05T00:00:00Z"),
    });
    // Up to now: yesterday is kept, today is not.
    expect(settledDays(at("2025-03-08T00:00:00Z"), new Date(now), now)).toEqual({
      start: Date.parse("2025-03-08T00:00:00Z"),
      end: Date.parse("2025-03-10T00:00:00Z"),
    });
    // Just after midnight, yesterday is not yet settled.
    const justAfter = Date.parse("2025-03-10T00:00:00Z") + SETTLED_MS - 1;
    expect(settledDays(at("2025-03-08T00:00:00Z"), new Date(justAfter), justAfter)!.end).toBe(Date.parse("2025-03-09T00:00:00Z"));
    expect(settledDays(at("2025-03-09T01:00:00Z"), at("2025-03-09T23:00:00Z"), now)).toBeUndefined();
  });

  it("numbers buckets from the UTC start of the one holding `from` to the one holding the last instant before `to`", () => {
    expect(bucketStarts(at("2025-03-01T06:00:00Z"), at("2025-03-03T00:00:00Z"), "day")).toEqual([
      Date.parse("2025-03-01T00:00:00Z"),
      Date.parse("2025-03-02T00:00:00Z"),
    ]);
    expect(bucketStarts(at("2025-03-01T06:30:00Z"), at("2025-03-01T08:00:01Z"), "hour")).toHaveLength(3);
    expect(bucketStarts(at("2024-01-01T00:00:00Z"), new Date(Date.parse("2024-01-01T00:00:00Z") + 400 * DAY), "day")).toHaveLength(400);
  });
});
