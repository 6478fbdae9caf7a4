import { describe, expect, it } from "vitest";
import { Catalog } from "../../../workers/index/catalog.js";

describe("Catalog", () => {
  it("answers an item's metadata from its text, all of it or only the named fields, item_type always", () => {
    const catalog = new Catalog();
    const i = catalog.upsert("sku-1", "book", "active", { title: "Dune", tags: ["sf", "classic"], price: 9.5, item_type: "ignored" }, 0);
    expect(catalog.metadata(i, undefined)).toEqual({ title: "Dune", tags: ["sf", "classic"], price: 9.5, item_type: "book" });
    expect(catalog.metadata(i, ["tags", "missing"])).toEqual({ tags: ["sf", "classic"], item_type: "book" });
    catalog.upsert("sku-1", "ebook", "active", { title: "Dune" }, 0);
    expect(catalog.metadata(i, undefined)).toEqual({ title: "Dune", item_type: "ebook" });
  });

  it("counts the bytes kept for attributes, down again when an item's attributes shrink", () => {
    const catalog = new Catalog();
    catalog.upsert("a", "t", "active", { text: "x".repeat(10_000) }, 0);
    const big = catalog.attributeBytes;
    expect(big).toBeGreaterThan(10_000);
    catalog.upsert("a", "t", "active", { text: "short" }, 0);
    expect(catalog.attributeBytes).toBeLessThan(200);
  });

  it("stops keeping attributes past the organisation's byte cap, and still serves those items with their type", () => {
    const catalog = new Catalog({ maxTokens: Infinity, maxBytes: 100_000 });
    const text = "y".repeat(30 * 1024);
    for (let i = 0; i < 10; i++) catalog.upsert(`big-${i}`, "doc", "active", { text, brand: "acme" }, 0);
    expect(catalog.attributeBytes).toBeLessThanOrEqual(100_000);
    expect(catalog.attributesRefused).toBe(10 - 3);
    const last = catalog.ids.find("big-9");
    expect(catalog.isActive(last)).toBe(true);
    expect(catalog.metadata(last, undefined)).toEqual({ item_type: "doc" });
    expect(catalog.metadata(catalog.ids.find("big-0"), ["brand"])).toEqual({ brand: "acme", item_type: "doc" });
  });

  it("stops posting new attribute tokens past the organisation's token cap, and keeps the ones it holds working", () => {
    const catalog = new Catalog({ maxTokens: 1_000, maxBytes: Infinity });
    for (let i = 0; i < 100; i++)
      catalog.upsert(`i${i}`, "t", "active", { tags: Array.from({ length: 50 }, (_, k) => `v${i}-${k}`), shelf: "s1" }, 0);
    expect(catalog.tokens.tokenCount).toBe(1_000);
    // The first items' tokens (shelf=s1 among them) were posted before the cap: neighbours are still found.
    const found = catalog.tokens.neighbours(0, 1_000);
    expect(found.size).toBeGreaterThan(0);
  });
});
