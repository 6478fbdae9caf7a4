import { describe, expect, it } from "vitest";
import { IdListReader, packIdList } from "../../src/wire/idList.js";
import { utf8Text } from "../../src/wire/msgpackCursor.js";

/** The list's ids as strings, read as the shard reads them. */
function idListTexts(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const r = new IdListReader().open(bytes);
  while (r.next()) out.push(utf8Text(r.bytes, r.at, r.n));
  return out;
}
import { IDENTIFIER_MAX } from "../../src/ingest/schemas.js";

/** Ids of every kind an identifier may be: ASCII, accented, CJK, astral (surrogate pairs), the longest allowed. */
const IDS = ["sku-1", "café", "商品-42", "🎉x🎉", "a", "x".repeat(IDENTIFIER_MAX), "😀".repeat(IDENTIFIER_MAX / 2), "日".repeat(IDENTIFIER_MAX)];

describe("an id list packed into one block of bytes", () => {
  it("gives back every id in order, duplicates kept, whatever its characters and up to the longest identifier", () => {
    const ids = [...IDS, "sku-1", "café", ...IDS.slice().reverse()];
    expect(idListTexts(packIdList(ids))).toEqual(ids);
    // A list all ASCII is encoded at once, another id by id: both alike.
    const ascii = ["sku-1", "x".repeat(IDENTIFIER_MAX), "sku-1", "a b", "~"];
    expect(idListTexts(packIdList(ascii))).toEqual(ascii);
  });

  it("lets the reader find each id's UTF-8 bytes in place", () => {
    const block = packIdList(IDS);
    const r = new IdListReader().open(block);
    const spans: string[] = [];
    while (r.next()) spans.push(Buffer.from(r.bytes.subarray(r.at, r.at + r.n)).toString("hex"));
    expect(spans).toEqual(IDS.map((id) => Buffer.from(id, "utf8").toString("hex")));
    // The longest identifier in 3-byte characters is 768 bytes: lengths do not fit a byte.
    expect(Math.max(...IDS.map((id) => Buffer.byteLength(id)))).toBe(3 * IDENTIFIER_MAX);
  });

  it("packs an empty list, and is its own copy (the next list packed does not change it)", () => {
    expect(idListTexts(packIdList([]))).toEqual([]);
    const first = packIdList(["a", "b"]);
    const second = packIdList(["c", "dé", "e"]);
    expect(idListTexts(first)).toEqual(["a", "b"]);
    expect(idListTexts(packIdList(["f"]))).toEqual(["f"]);
    expect(idListTexts(second)).toEqual(["c", "dé", "e"]);
  });

  it("reads a list read back from a larger buffer (as msgpack hands it over), from its own offset", () => {
    for (const ids of [
      ["one", "two"],
      ["one", "twö"],
    ]) {
      const block = packIdList(ids);
      const outer = new Uint8Array(block.length + 7);
      outer.set(block, 5);
      expect(idListTexts(outer.subarray(5, 5 + block.length))).toEqual(ids);
    }
  });

  it("throws on a block cut short rather than reading past it", () => {
    for (const ids of [
      ["abc", "def"],
      ["abc", "déf"],
    ]) {
      const block = packIdList(ids);
      expect(() => idListTexts(block.subarray(0, block.length - 1))).toThrow(/past the end/);
      expect(() => idListTexts(block.subarray(0, 5))).toThrow(/lengths cut short/);
      expect(() => idListTexts(block.subarray(0, 1))).toThrow(/no count/);
    }
  });
});
