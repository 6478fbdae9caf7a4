import { describe, expect, it } from "vitest";
import { packIdList } from "../../../src/wire/idList.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { listedItems } from "../../../workers/strategies/eligibility.js";

describe("the caller's candidates, found in the catalog", () => {
  it("keeps the caller's order, each item once, and leaves out ids the catalog does not know", () => {
    const index = new OrgIndex(1, 0);
    const long = "é".repeat(256);
    const names = ["sku-1", "café", "商品-42", "🎉x🎉", long, "sku-2"];
    // Some interned as strings (an item upserted), some as UTF-8 bytes (an event's item read in place from a batch).
    for (const name of names.slice(0, 3)) index.upsertItem(name, "product", "active", {}, 0);
    for (const name of names.slice(3)) {
      const bytes = Buffer.from(`..${name}`);
      index.catalog.internBytes(bytes, 2, bytes.length - 2);
    }
    const at = (name: string) => index.catalog.ids.find(name);
    const candidates = ["sku-2", "nope", "café", "sku-2", long, "Café", "sku-1", "café", "商品-4", "🎉x🎉", "sku-2", long.slice(1)];
    const expected = ["sku-2", "café", long, "sku-1", "🎉x🎉"].map(at);
    // Twice: the second finds by their bytes the ids the first found as strings.
    expect(listedItems(index, packIdList(candidates))).toEqual(expected);
    expect(listedItems(index, packIdList(candidates))).toEqual(expected);
    expect(listedItems(index, packIdList(["nope"]))).toEqual([]);
    expect(index.catalog.size).toBe(names.length);
  });
});
