import { describe, expect, it } from "vitest";
import { AnswerBatch, readAnswers } from "../../src/wire/answerBatch.js";
import type { RankResult } from "../../src/wire/rank.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

function result(i: number, hasNext: boolean, mode: RankResult["mode"]): RankResult {
  const ids = Array.from({ length: i % 4 }, (_, k) => `ïtem-${i}-${k}`);
  return {
    mode,
    count: ids.length,
    hasNext,
    items: enc.encode(JSON.stringify(ids)),
    results: enc.encode(JSON.stringify(ids.map((item_id) => ({ item_id, score: 1 })))),
  };
}

/** What a reader sees of an answer: bytes as text, so that views and copies compare alike. */
const readable = (r: RankResult | undefined) => r && { ...r, items: dec.decode(r.items), results: dec.decode(r.results) };

describe("the batch a recommender thread answers the front thread with", () => {
  it("gives back every answer in order, failures included, across growth past its first buffer", () => {
    const batch = new AnswerBatch();
    const modes = ["personalized", "contextual", "global", "fallback"] as const;
    const sent: Array<[number, RankResult | undefined]> = [];
    for (let i = 0; i < 3_000; i++) {
      const id = 2 ** 32 - 1 - i;
      if (i % 7 === 3) {
        batch.fail(id);
        sent.push([id, undefined]);
      } else {
        const r = result(i, i % 2 === 0, modes[i % 4]!);
        batch.add(id, r);
        sent.push([id, r]);
      }
    }
    expect(batch.size).toBe(3_000);
    const message = batch.take();
    expect(message.byteLength).toBeGreaterThan(64 * 1024);
    const got: Array<[number, RankResult | undefined]> = [];
    readAnswers(message, (id, r) => got.push([id, r]));
    expect(got.map(([id, r]) => [id, readable(r)])).toStrictEqual(sent.map(([id, r]) => [id, readable(r)]));
  });

  it("starts empty again after each take", () => {
    const batch = new AnswerBatch();
    batch.add(1, result(1, false, "global"));
    batch.take();
    expect(batch.size).toBe(0);
    batch.add(2, result(2, true, "fallback"));
    const ids: number[] = [];
    readAnswers(batch.take(), (id) => ids.push(id));
    expect(ids).toEqual([2]);
  });
});
