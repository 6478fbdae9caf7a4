import { unpackMultiple } from "msgpackr";
import { describe, expect, it } from "vitest";
import { Attribution } from "../../src/recommend/attribution.js";
import type { RankRequest } from "../../src/recommend/schema.js";
import type { ServedResult, ServedRow } from "../../workers/writer/served.js";

/** A writer that answers as told and keeps what it was given (the real one is exercised in attribution.test.ts). */
function writer(answers: ServedResult[]) {
  const written: ServedRow[][] = [];
  return {
    written,
    writeServed: async (payload: Uint8Array) => {
      const answer = answers.shift() ?? { ok: true as const };
      if (answer.ok) written.push(unpackMultiple(payload) as ServedRow[]);
      return answer;
    },
  };
}

const ids = (list: string[]) => new TextEncoder().encode(JSON.stringify(list));
const req = (userId: string): RankRequest => ({ org: 7, strategy: "personalized", userId, limit: 20, page: 1, excludeSeen: true }) as RankRequest;
const down: ServedResult = { ok: false, unavailable: true, message: "connection refused" };

describe("Attribution buffering", () => {
  it("writes each served row once with its fields, in the order served", async () => {
    const w = writer([]);
    const a = new Attribution(w);
    a.record("id-1", req("u1"), "personalized", ids(["a", "b"]));
    a.record("id-2", req("u2"), "fallback", ids([]));
    await a.close();
    expect(w.written).toHaveLength(1);
    const [first, second] = w.written[0]!;
    expect(first!.slice(0, 6)).toEqual([7, "id-1", "personalized", "personalized", "u1", null]);
    expect(second!.slice(0, 6)).toEqual([7, "id-2", "personalized", "fallback", "u2", null]);
    expect(JSON.parse(Buffer.from(first![6] as Uint8Array).toString())).toEqual(["a", "b"]);
    expect(JSON.parse(Buffer.from(second![6] as Uint8Array).toString())).toEqual([]);
    expect(Math.abs(Number(first![7]) - Date.now())).toBeLessThan(60_000);
  });

  it("keeps rows while the database is unavailable and writes them, oldest first, once it is back", async () => {
    const w = writer([down, down]);
    const a = new Attribution(w);
    a.record("id-1", req("u1"), "personalized", ids(["a"]));
    await a.flush();
    a.record("id-2", req("u2"), "personalized", ids(["b"]));
    await a.flush();
    expect(w.written).toHaveLength(0);
    a.record("id-3", req("u3"), "personalized", ids(["c"]));
    await a.close();
    expect(w.written.flat().map((r) => r[1])).toEqual(["id-1", "id-2", "id-3"]);
    expect(a.droppedRows).toBe(0);
  });

  it("drops the oldest held rows beyond its limit, and counts them", async () => {
    const w = writer([down, down, down]);
    const a = new Attribution(w, 2);
    for (const id of ["id-1", "id-2", "id-3"]) {
      a.record(id, req("u"), "personalized", ids([]));
      await a.flush();
    }
    await a.close();
    expect(w.written.flat().map((r) => r[1])).toEqual(["id-2", "id-3"]);
    expect(a.droppedRows).toBe(1);
  });
});
