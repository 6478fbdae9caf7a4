import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { MsgpackCursor } from "../../src/wire/msgpackCursor.js";

const packr = new Packr({ useRecords: false, variableMapSize: true });

/** Packs [value, 7], skips the value, and returns the number the cursor finds after it. */
function afterSkipping(value: unknown): number | undefined {
  const c = new MsgpackCursor(packr.pack([value, 7]));
  expect(c.arrayLength()).toBe(2);
  c.skip();
  return c.number();
}

describe("MsgpackCursor.skip", () => {
  // Each length crosses a boundary of msgpack's size classes: fixstr/str8 at 32, str8/str16 at 256, str16/str32 at 65,536.
  for (const n of [0, 31, 32, 255, 256, 257, 65_535, 65_536, 70_000]) {
    it(`moves past a string of ${n} bytes`, () => expect(afterSkipping("x".repeat(n))).toBe(7));
    it(`moves past binary data of ${n} bytes`, () => expect(afterSkipping(Buffer.alloc(n, 1))).toBe(7));
  }
  for (const n of [15, 16, 65_536]) {
    it(`moves past an array of ${n} values and a map of ${n} keys`, () => {
      expect(afterSkipping(Array.from({ length: n }, (_, i) => `v${i}`))).toBe(7);
      expect(afterSkipping(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "y".repeat(300)])))).toBe(7);
    });
  }
  it("moves past numbers of every width, booleans and nil", () => {
    for (const v of [0, -1, 200, -200, 70_000, -70_000, 2 ** 40, -(2 ** 40), 0.5, true, false, null]) expect(afterSkipping(v)).toBe(7);
  });
});

describe("MsgpackCursor.stringLength", () => {
  for (const n of [254, 256, 65_536]) {
    it(`reads the length of a ${n}-byte string and leaves the cursor on its first byte`, () => {
      const c = new MsgpackCursor(packr.pack(["é".repeat(n / 2), 7]));
      c.arrayLength();
      const len = c.stringLength();
      expect(len).toBe(n);
      expect(c.bytes[c.at]).toBe(0xc3);
      c.at += len;
      expect(c.number()).toBe(7);
    });
  }
});
