import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../src/wire/byteWriter.js";

const written = (w: ByteWriter) => w.view().toString("utf8");

describe("ByteWriter", () => {
  it("writes JSON string literals exactly as JSON.stringify does, escapes and non-ASCII included", () => {
    const samples = [
      "item-1",
      "",
      'say "hi"',
      "back\\slash",
      "tab\there",
      "new\nline",
      "\u0001",
      "café",
      "日本",
      "😀",
      "\ud800 lone",
      "x".repeat(5_000),
    ];
    const w = new ByteWriter();
    for (const s of samples) expect(written(w.reset().jsonString(s))).toBe(JSON.stringify(s));
    w.reset().text("[");
    samples.forEach((s, k) => (k > 0 ? w.text(",") : w).jsonString(s));
    expect(JSON.parse(written(w.text("]")))).toEqual(samples);
  });

  it("writes whole numbers as their decimal text", () => {
    const w = new ByteWriter();
    for (const n of [0, 7, 10, 99, 100, 20_000, 1_234_567_890, Number.MAX_SAFE_INTEGER, -3, 2 ** 60]) {
      expect(written(w.reset().int(n))).toBe(String(n));
    }
  });

  it("writes text after its length in UTF-8 bytes, also when the buffer grows in the middle of it", () => {
    const w = new ByteWriter();
    const samples = ["", "popular", "usér-ß-☃ 😀", "日本".repeat(10_000)];
    for (const s of samples) {
      const b = Buffer.from(w.reset().byte(9).sizedText(s).view());
      expect(b[0]).toBe(9);
      expect(b.readUInt32BE(1)).toBe(Buffer.byteLength(s));
      expect(b.subarray(5).toString("utf8")).toBe(s);
    }
  });
});
