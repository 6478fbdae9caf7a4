import { describe, expect, it } from "vitest";
import { z } from "zod";
import { schemaError } from "../../src/errors.js";
import { Identifier } from "../../src/ingest/schemas.js";
import { RecommendSchema } from "../../src/recommend/schema.js";

/** What the schema gives: its data, or the message of the 400 it would answer. */
function outcome(schema: z.ZodType, body: unknown): unknown {
  const r = schema.safeParse(body);
  return r.success ? { data: r.data } : { error: schemaError(r.error).message };
}

describe("the recommend schema's candidates", () => {
  it("accepts and refuses what an array of identifiers checked id by id would, with the same messages and the body's own checks alike", () => {
    // The list as it was stated before it was checked in one loop: the reference for every outcome.
    const byElement = RecommendSchema.safeExtend({ candidates: z.array(Identifier).min(1).max(500).optional() });
    const longest = Array.from({ length: 500 }, (_, k) => `i${k}`);
    const lists: unknown[] = [
      ["a"],
      ["a", "a", "é ü ✓", "🎉", "x".repeat(256)],
      longest,
      [...longest, "i500"],
      [...longest, 7],
      [],
      ["a", 7],
      ["a", "tab\there", ""],
      ["x".repeat(257)],
      ["\ud800", "ok"],
      [null, [], {}],
      "a",
      null,
      {},
      undefined,
    ];
    const bodies: object[] = [
      { strategy: "personalized", user_id: "u1" },
      { strategy: "similar" },
      { strategy: "popular", page: 600 },
      { strategy: "popular", diversity: 0.5, page: 60, filters: { brand: "x" } },
      { strategy: "popular", item_type: "a", filters: { item_type: "b" } },
      { strategy: "personalized", user_id: "u1", fields: ["title"], limit: 0 },
    ];
    let refused = 0;
    for (const body of bodies)
      for (const candidates of lists) {
        const b = { ...body, candidates };
        const expected = outcome(byElement, b);
        expect(outcome(RecommendSchema, b), JSON.stringify(b)).toStrictEqual(expected);
        if ("error" in (expected as object)) refused++;
      }
    expect(refused).toBeGreaterThan(bodies.length * 5);
  });
});
