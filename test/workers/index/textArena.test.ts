import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/recommend/byteWriter.js";
import { TextArena } from "../../../workers/index/textArena.js";

const textOf = (arena: TextArena, id: number, from?: number, to?: number) => {
  const out = new ByteWriter();
  arena.writeTo(out, id, from, to);
  return out.view().toString("utf8");
};

describe("TextArena", () => {
  it("keeps each id's text and mark, replaces and drops them, and writes any part of a text", () => {
    const arena = new TextArena();
    arena.set(2, "héllo wörld", 6);
    arena.set(5000, "x");
    expect([arena.has(2), arena.has(3), arena.has(5000), arena.has(1e6)]).toEqual([true, false, true, false]);
    expect(textOf(arena, 2)).toBe("héllo wörld");
    expect(arena.mark(2)).toBe(6);
    expect(textOf(arena, 2, 0, arena.mark(2))).toBe("héllo");
    arena.set(2, "again");
    expect(textOf(arena, 2)).toBe("again");
    arena.drop(2);
    expect([arena.has(2), arena.length(2)]).toEqual([false, 0]);
  });

  it("compacts the bytes replaced texts left behind, and every kept text survives it", () => {
    const arena = new TextArena();
    const expected = new Map<number, string>();
    for (let round = 0; round < 50; round++) {
      for (let id = 0; id < 500; id++) {
        const text = `item ${id} round ${round} ${"·".repeat(id % 40)}`;
        arena.set(id, text);
        expected.set(id, text);
      }
      for (let id = round % 7; id < 500; id += 7) {
        arena.drop(id);
        expected.delete(id);
      }
    }
    for (let id = 0; id < 500; id++) expect(arena.has(id) ? textOf(arena, id) : undefined).toBe(expected.get(id));
  });
});

describe("ByteWriter", () => {
  it("writes ASCII and other text as UTF-8 and bytes as given, growing past its first buffer", () => {
    const out = new ByteWriter();
    const long = "é".repeat(20_000);
    out.text('{"a":').text(JSON.stringify("naïve ☃")).bytes(new TextEncoder().encode(",1}")).text(long);
    expect(out.view().toString("utf8")).toBe(`{"a":"naïve ☃",1}${long}`);
    const kept = out.copy();
    out.reset().text("next");
    expect(Buffer.from(kept).toString("utf8")).toBe(`{"a":"naïve ☃",1}${long}`);
    expect(out.view().toString("utf8")).toBe("next");
  });
});
