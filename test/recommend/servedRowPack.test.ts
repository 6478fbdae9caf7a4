import { unpackMultiple } from "msgpackr";
import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../src/recommend/byteWriter.js";
import { packServedRow } from "../../src/recommend/servedRowPack.js";

describe("packServedRow", () => {
  it("writes rows that msgpackr reads back as the served rows, whatever the lengths and characters", () => {
    const w = new ByteWriter();
    const longItems = new TextEncoder().encode(JSON.stringify(Array.from({ length: 40 }, (_, i) => `item-${i}`)));
    const rows = [
      [7, "0194f0c2-0000-7000-8000-000000000001", "popular", "global", undefined, undefined, new TextEncoder().encode('["a","b"]'), 1_763_900_000_123],
      [300_000, "r".repeat(40), "similar", "contextual", "usér-ß-☃", "x".repeat(300), longItems, 1_763_900_000_999],
      [127, "id", "personalized", "fallback", "u".repeat(31), "c".repeat(32), new Uint8Array(0), 0],
    ] as const;
    for (const r of rows) packServedRow(w, ...r);
    const read = unpackMultiple(w.copy()) as unknown[][];
    expect(read).toHaveLength(3);
    read.forEach((got, k) => {
      const [org, id, strategy, mode, user, context, items, at] = rows[k]!;
      expect(got.slice(0, 6)).toEqual([org, id, strategy, mode, user ?? null, context ?? null]);
      expect(Buffer.from(got[6] as Uint8Array).equals(Buffer.from(items))).toBe(true);
      expect(got[7]).toBe(at);
    });
  });
});
