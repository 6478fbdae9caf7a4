import { describe, expect, it } from "vitest";
import { packBatch, packedBatchOrgs } from "../../src/wire/batchPack.js";
import { Packr } from "msgpackr";
import type { EventRow, ItemRow, UserRow } from "../../src/wire/batchRows.js";

const event = (org: number): EventRow => [org, `e-${org}`, "u", "i", "engagement", "view", 1, null, null, null, "2026-01-01T00:00:00Z"];
const item = (org: number): ItemRow => [org, "i", "book", "active", { a: [1, { b: 2 }] }, null];
const user = (org: number): UserRow => [org, "u", "active", { tier: "gold" }, "2026-01-01T00:00:00Z"];

describe("packedBatchOrgs", () => {
  it("reads each organisation a packed batch holds records of, once, in the order they first appear", () => {
    const packed = packBatch({ items: [item(4), item(9)], users: [user(9), user(2)], events: [event(2), event(7), event(4)] });
    expect(packedBatchOrgs(packed)).toEqual([4, 9, 2, 7]);
  });

  it("reads no organisation from an empty batch", () => {
    expect(packedBatchOrgs(packBatch({ items: [], users: [], events: [] }))).toEqual([]);
  });

  it("throws on a row whose first column is not an organisation", () => {
    const bad = new Packr({ useRecords: false }).pack({ items: [], users: [], events: [["not-an-org", "e"]] });
    expect(() => packedBatchOrgs(bad)).toThrow(/organisation/);
  });
});
