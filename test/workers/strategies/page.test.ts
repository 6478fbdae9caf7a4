import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/wire/byteWriter.js";
import type { RankRequest } from "../../../src/wire/rank.js";
import { Catalog } from "../../../workers/index/catalog.js";
import type { OrgIndex } from "../../../workers/index/orgIndex.js";
import { page, writeScore } from "../../../workers/strategies/page.js";

const scratch = new ByteWriter();
/** The text writeScore writes, as a string. */
const scoreJson = (score: number): string => writeScore(scratch.reset(), score).view().toString("latin1");
const reference = (x: number) => JSON.stringify(Math.round(x * 1e6) / 1e6);

describe("writeScore", () => {
  it("writes a score exactly as JSON.stringify writes it rounded to 6 decimals", () => {
    const special = [0, -0, 1, -1, 0.5, 1e-6, 4e-7, 6e-7, -4e-7, 0.1 + 0.2, 2147.483647, 2147.483648, 1e15, -1e21, NaN, Infinity, -Infinity];
    for (const x of special) expect(scoreJson(x), String(x)).toBe(reference(x));
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const wrong: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      const x = (random() - 0.3) * 10 ** Math.floor(random() * 8 - 4);
      if (scoreJson(x) !== reference(x)) wrong.push(x);
    }
    expect(wrong).toEqual([]);
  });
});

describe("page", () => {
  it("renders each item's id, score, reason and metadata, and the ids again, while new texts move the stored ones", () => {
    const catalog = new Catalog();
    const index = { catalog } as unknown as OrgIndex;
    const attributes = (i: number, round: number) => ({ title: `ítem ${i} “${"x".repeat(i % 200)}”`, round });
    const n = 5_000;
    const current: ReturnType<typeof attributes>[] = [];
    const upsert = (i: number, round: number) => catalog.upsert(`id-${i}-é`, "book", "active", (current[i] = attributes(i, round)), 0);
    for (let i = 0; i < n; i++) upsert(i, 0);
    const req = { page: 1, limit: 100, fields: undefined } as unknown as RankRequest;
    for (let round = 0; round < 6; round++) {
      // Every round re-renders a third of the catalog, leaving the old texts behind in the store.
      for (let i = round; i < n; i += 3) upsert(i, round);
      for (let start = 0; start < n; start += 100) {
        const items = Int32Array.from({ length: 101 }, (_, k) => (start + k * 37) % n);
        const scores = Float64Array.from(items, (_, k) => 1 - k / 1_000);
        const reasons = round % 2 === 0 ? "collaborative" : Array.from(items, (i) => `similar-to:${i}`);
        const result = page(index, req, "personalized", { items, scores, reasons });
        const shown = Array.from(items.subarray(0, 100));
        expect(JSON.parse(Buffer.from(result.results).toString("utf8"))).toEqual(
          shown.map((i, k) => ({
            item_id: `id-${i}-é`,
            score: Math.round(scores[k]! * 1e6) / 1e6,
            reason: typeof reasons === "string" ? reasons : reasons[k],
            metadata: { ...current[i], item_type: "book" },
          })),
        );
        expect(JSON.parse(Buffer.from(result.items).toString("utf8"))).toEqual(shown.map((i) => `id-${i}-é`));
        expect([result.count, result.hasNext]).toEqual([100, true]);
      }
    }
  });
});
