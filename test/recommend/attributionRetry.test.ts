import { describe, expect, it } from "vitest";
import { Attribution } from "../../src/recommend/attribution.js";
import type { RankRequest } from "../../src/wire/rank.js";
import type { ServedResult } from "../../src/wire/writeTasks.js";
import { readServedTuples, type ServedTupleRow } from "../helpers/servedTuples.js";

/** A writer that answers as told and keeps what it was given (the real one is exercised in attribution.test.ts). */
function writer(answers: ServedResult[]) {
  const written: ServedTupleRow[][] = [];
  return {
    written,
    writeServed: async (payload: Uint8Array) => {
      const answer = answers.shift() ?? { ok: true as const };
      if (answer.ok) written.push(readServedTuples(payload));
      return answer;
    },
  };
}

const ids = (list: string[]) => new TextEncoder().encode(JSON.stringify(list));
const req = (userId: string): RankRequest => ({ org: 7, strategy: "personalized", userId, limit: 20, page: 1, excludeSeen: true }) as RankRequest;
/** A recommendation id (the served log keys rows by UUID). */
const rid = (n: number) => `00000000-0000-7000-8000-${String(n).padStart(12, "0")}`;
const down: ServedResult = { ok: false, unavailable: true, message: "connection refused" };

describe("Attribution buffering", () => {
  it("writes each served row once with its fields, in the order served", async () => {
    const w = writer([]);
    const a = new Attribution(w);
    a.record(rid(1), req("u1"), "default", "personalized", ids(["a", "b"]));
    a.record(rid(2), req("u2"), "default", "fallback", ids([]));
    await a.close();
    expect(w.written).toHaveLength(1);
    const [first, second] = w.written[0]!;
    expect(first).toMatchObject({
      org: 7,
      id: rid(1),
      strategy: "personalized",
      scenario: "default",
      mode: "personalized",
      userId: "u1",
      contextItemId: null,
    });
    expect(second).toMatchObject({ org: 7, id: rid(2), strategy: "personalized", mode: "fallback", userId: "u2", contextItemId: null });
    expect(JSON.parse(first!.items)).toEqual(["a", "b"]);
    expect(JSON.parse(second!.items)).toEqual([]);
    expect(Math.abs(first!.servedAtMs - Date.now())).toBeLessThan(60_000);
  });

  it("keeps rows while the database is unavailable and writes them, oldest first, once it is back", async () => {
    const w = writer([down, down]);
    const a = new Attribution(w);
    a.record(rid(1), req("u1"), "default", "personalized", ids(["a"]));
    await a.flush();
    a.record(rid(2), req("u2"), "default", "personalized", ids(["b"]));
    await a.flush();
    expect(w.written).toHaveLength(0);
    a.record(rid(3), req("u3"), "default", "personalized", ids(["c"]));
    await a.close();
    expect(w.written.flat().map((r) => r.id)).toEqual([rid(1), rid(2), rid(3)]);
    expect(a.droppedRows).toBe(0);
  });

  it("drops the oldest held rows beyond its limit, and counts them", async () => {
    const w = writer([down, down, down]);
    const a = new Attribution(w, 2);
    for (const id of [rid(1), rid(2), rid(3)]) {
      a.record(id, req("u"), "default", "personalized", ids([]));
      await a.flush();
    }
    await a.close();
    expect(w.written.flat().map((r) => r.id)).toEqual([rid(2), rid(3)]);
    expect(a.droppedRows).toBe(1);
  });
});
