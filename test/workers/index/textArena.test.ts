import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/wire/byteWriter.js";
import { TextArena } from "../../../workers/index/textArena.js";
import { TextStore } from "../../../workers/index/textStore.js";

const textOf = (arena: TextArena, id: number, from?: number, to?: number) => {
  const out = arena.store.writer.reset();
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

  it("writes texts of every length from 0 to 300 bytes byte for byte, whole and from any offset, one after another", () => {
    const arena = new TextArena(new TextStore());
    const texts = Array.from({ length: 301 }, (_, n) => Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((n * 7 + i) % 90))).join(""));
    texts.forEach((text, id) => arena.set(id, text));
    const out = arena.store.writer.reset();
    for (let id = 0; id <= 300; id++) arena.writeTo(out, id, id % 5);
    expect(out.view().toString("latin1")).toBe(texts.map((t, id) => t.slice(id % 5)).join(""));
  });

  it("compacts the bytes replaced texts left behind, and every kept text of every arena in the store survives it", () => {
    const store = new TextStore(4096);
    const arenas = [new TextArena(store), new TextArena(store)];
    const expected = arenas.map(() => new Map<number, string>());
    for (let round = 0; round < 50; round++) {
      arenas.forEach((arena, a) => {
        for (let id = 0; id < 500; id++) {
          const text = `arena ${a} item ${id} round ${round} ${"·".repeat(id % 40)}`;
          arena.set(id, text);
          expected[a]!.set(id, text);
        }
        for (let id = (round + a) % 7; id < 500; id += 7) {
          arena.drop(id);
          expected[a]!.delete(id);
        }
      });
    }
    // Fifty rounds of ~25 KB each would need 1.3 MB per arena without compaction.
    expect(store.bytes.length).toBeLessThan(1_000_000);
    arenas.forEach((arena, a) => {
      for (let id = 0; id < 500; id++) expect(arena.has(id) ? textOf(arena, id) : undefined).toBe(expected[a]!.get(id));
    });
  });

  it("assembles a page larger than the store's page region in a buffer of its own", () => {
    const arena = new TextArena(new TextStore());
    const big = "x".repeat(100_000);
    arena.set(1, big);
    arena.set(2, "ü");
    const out = arena.store.writer.reset();
    for (let k = 0; k < 4; k++) arena.writeTo(out, 1);
    arena.writeTo(out, 2);
    expect(out.view().toString("utf8")).toBe(big.repeat(4) + "ü");
  });

  it("holds repeated text in its scratch region, or refuses it when too long", () => {
    const store = new TextStore();
    const n = store.scratch(',"reason":"similar-to:é"');
    expect(store.writer.reset().stored(store.scratchAt, n).stored(store.scratchAt, n).view().toString("utf8")).toBe(
      ',"reason":"similar-to:é"'.repeat(2),
    );
    expect(store.scratch("y".repeat(5000))).toBe(-1);
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
