import { describe, expect, it } from "vitest";
import { TimeText } from "../../src/wire/timeText.js";

describe("the time text cache", () => {
  it("parses each run of equal texts once, and a text again after another came between", () => {
    const texts = ["2026-11-24T06:00:00Z", "2026-11-24T06:00:00Z", "2026-11-24T06:00:01Z", "2026-11-24T06:00:00Z"];
    const bytes = Buffer.from(texts.join(""));
    const parsed: string[] = [];
    const times = new TimeText((b, at, n) => {
      const text = Buffer.from(b.buffer, b.byteOffset + at, n).toString("utf8");
      parsed.push(text);
      return Date.parse(text) / 1000;
    });
    const seconds = texts.map((t, k) => times.of(bytes, k * t.length, t.length));
    expect(seconds).toEqual(texts.map((t) => Date.parse(t) / 1000));
    expect(parsed).toEqual([texts[0], texts[2], texts[3]]);
  });
});
