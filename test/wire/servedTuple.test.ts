import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../src/wire/byteWriter.js";
import { writeServedTuple } from "../../src/wire/servedTuple.js";
import { readServedTuples } from "../helpers/servedTuples.js";

describe("writeServedTuple", () => {
  it("writes binary COPY tuples that read back as the served rows, whatever the lengths and characters", () => {
    const w = new ByteWriter();
    const longItems = JSON.stringify(Array.from({ length: 400 }, (_, i) => `item-${i}`));
    const rows = [
      [7, "0194f0c2-0000-7000-8000-000000000001", "popular", "default", "global", undefined, undefined, '["a","b"]', 1_763_900_000_123, undefined],
      [
        300_000,
        "0194F0C2-ABCD-7EF0-9123-456789ABCDEF",
        "similar",
        "product-page",
        "contextual",
        "usér-ß-☃",
        "x".repeat(300),
        longItems,
        1_763_900_000_999,
        { experimentId: "0194F0C2-1111-7EF0-9123-456789ABCDEF", variant: "B ☃" },
      ],
      [
        127,
        "00000000-0000-0000-0000-000000000000",
        "personalized",
        "s".repeat(64),
        "fallback",
        "u",
        "😀",
        "[]",
        Date.UTC(1999, 11, 31, 23, 59, 59, 999),
        { experimentId: "00000000-0000-0000-0000-000000000001", variant: "holdout" },
      ],
    ] as const;
    for (const [org, id, strategy, scenario, mode, user, context, items, at, enrolment] of rows) {
      writeServedTuple(w, org, id, strategy, scenario, mode, user, context, new TextEncoder().encode(items), at, enrolment);
    }
    expect(readServedTuples(w.copy())).toEqual(
      rows.map(([org, id, strategy, scenario, mode, user, context, items, at, enrolment]) => ({
        org,
        id: id.toLowerCase(),
        strategy,
        scenario,
        mode,
        userId: user ?? null,
        contextItemId: context ?? null,
        items,
        servedAtMs: at,
        experimentId: enrolment?.experimentId.toLowerCase() ?? null,
        variant: enrolment?.variant ?? null,
      })),
    );
  });

  it("refuses an experiment id that is not a UUID", () => {
    expect(() =>
      writeServedTuple(
        new ByteWriter(),
        1,
        "0194f0c2-0000-7000-8000-000000000001",
        "popular",
        "default",
        "global",
        "u",
        undefined,
        new Uint8Array(2),
        0,
        {
          experimentId: "exp-1",
          variant: "B",
        },
      ),
    ).toThrow(/not a UUID/);
  });

  it("refuses an id that is not a UUID rather than write a tuple PostgreSQL would refuse with the whole batch", () => {
    for (const id of [
      "id-1",
      "0194f0c2-0000-7000-8000-00000000000g",
      "0194f0c2+0000-7000-8000-000000000001",
      `0194f0c2-0000-7000-8000-00000000000${"\u0010"}`,
    ]) {
      expect(() =>
        writeServedTuple(new ByteWriter(), 1, id, "popular", "default", "global", undefined, undefined, new Uint8Array(2), 0, undefined),
      ).toThrow(/not a UUID/);
    }
  });
});
