import { describe, expect, it } from "vitest";
import { ScoreBoard } from "../../../workers/strategies/scoreBoard.js";

describe("ScoreBoard", () => {
  it("sums each item's parts, lists items in first-written order and keeps the tag of the largest part", () => {
    const board = new ScoreBoard();
    board.add(7, 0.5, 1);
    board.add(3, 0.25, 2);
    board.add(7, 0.75, 4);
    board.add(7, 0.75, 9); // a tie keeps the first tag
    expect(Array.from(board.items.subarray(0, board.size))).toEqual([7, 3]);
    expect(board.sum(7)).toBe(2);
    expect(board.bestTag(7)).toBe(4);
    expect(board.sum(3)).toBe(0.25);
    expect(board.bestTag(3)).toBe(2);
    expect(board.sum(5)).toBe(0);
    expect(board.bestTag(5)).toBe(-1);
  });

  it("empties on clear, and grows for ids beyond its first capacity", () => {
    const board = new ScoreBoard();
    board.add(1, 1);
    board.clear();
    expect(board.size).toBe(0);
    expect(board.sum(1)).toBe(0);
    board.add(50_000, 2, 3);
    board.add(1, 4);
    for (let i = 0; i < 1_000; i++) board.add(10_000 + i, 1);
    expect(board.size).toBe(1_002);
    expect(board.sum(50_000)).toBe(2);
    expect(board.sum(1)).toBe(4);
    board.setSum(1, 8);
    expect(board.sum(1)).toBe(8);
  });
});

describe("ScoreBoard as the table grows", () => {
  it("keeps every item's sum and tag across growth, and forgets them all on clear", () => {
    const board = new ScoreBoard();
    const ids = Array.from({ length: 5_000 }, (_, k) => k * 4_096 + (k % 7)); // spread ids, many sharing low bits
    ids.forEach((id, k) => board.add(id, k, k));
    ids.forEach((id) => board.add(id, 0.5, -5));
    expect(board.size).toBe(5_000);
    expect(ids.every((id, k) => board.sum(id) === k + 0.5)).toBe(true);
    expect(ids.slice(1).every((id, k) => board.bestTag(id) === k + 1)).toBe(true);
    expect(board.bestTag(ids[0]!)).toBe(-5); // 0.5 beat the first part, 0
    expect(Array.from(board.items.subarray(0, board.size))).toEqual(ids);
    board.clear();
    expect(ids.some((id) => board.sum(id) !== 0)).toBe(false);
    board.add(ids[42]!, 3, 1);
    expect(board.size).toBe(1);
    expect(board.sum(ids[42]!)).toBe(3);
  });
});
