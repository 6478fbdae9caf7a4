import { describe, expect, it } from "vitest";
import { scoreJson } from "../../../workers/strategies/page.js";

const reference = (x: number) => JSON.stringify(Math.round(x * 1e6) / 1e6);

describe("scoreJson", () => {
  it("writes a score exactly as JSON.stringify writes it rounded to 6 decimals", () => {
    const special = [0, -0, 1, -1, 0.5, 1e-6, 4e-7, 6e-7, -4e-7, 0.1 + 0.2, 2147.483647, 2147.483648, 1e15, -1e21, NaN, Infinity, -Infinity];
    for (const x of special) expect(scoreJson(x), String(x)).toBe(reference(x));
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const wrong: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      const x = (random() - 0.3) * 10 ** Math.floor(random() * 8 - 4);
      if (scoreJson(x) !== reference(x)) wrong.push(x);
    }
    expect(wrong).toEqual([]);
  });
});
