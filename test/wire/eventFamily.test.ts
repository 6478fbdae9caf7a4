import { describe, expect, it } from "vitest";
import { FAMILY, familyOf, familyOfBytes } from "../../src/wire/eventFamily.js";

describe("an event's family as a number", () => {
  it("is the same read from text or from its bytes, and `other` for any name but the three", () => {
    const cases: Array<[string, number]> = [
      ["engagement", FAMILY.engagement],
      ["conversion", FAMILY.conversion],
      ["exposure", FAMILY.exposure],
      ["system", FAMILY.other],
      ["engagements", FAMILY.other],
      ["Engagement", FAMILY.other],
      ["", FAMILY.other],
    ];
    for (const [text, family] of cases) {
      const bytes = Buffer.from(`..${text}..`);
      expect([familyOf(text), familyOfBytes(bytes, 2, bytes.length - 4)]).toEqual([family, family]);
    }
  });
});
