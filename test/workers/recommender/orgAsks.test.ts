import { describe, expect, it } from "vitest";
import type { RankAsk } from "../../../src/wire/shardMessages.js";
import type { RankRequest } from "../../../src/wire/rank.js";
import { OrgAsks } from "../../../workers/recommender/orgAsks.js";

const req: RankRequest = {
  org: 7,
  strategy: "popular",
  userId: undefined,
  contextItemId: undefined,
  contextItemIds: undefined,
  candidates: undefined,
  diversity: undefined,
  maxPer: undefined,
  itemType: undefined,
  filters: undefined,
  excludeItemIds: undefined,
  excludeSeen: false,
  fields: undefined,
  limit: 10,
  page: 1,
};
const ask = (id: number, deadline: number): RankAsk => ({ id, req, deadline });

/** An organisation's lane on a clock the test sets, recording what it ranked and how many it dropped. */
function lane() {
  const clock = { now: 1_000 };
  const served: number[] = [];
  const dropped = { n: 0 };
  const asks = new OrgAsks(
    (a) => served.push(a.id),
    () => dropped.n++,
    () => clock.now,
  );
  const drain = () => {
    while (asks.waiting) asks.runOne();
  };
  return { asks, clock, served, dropped, drain };
}

describe("OrgAsks (one organisation's rank asks on its shard)", () => {
  it("ranks an organisation's asks in the order they came, however many wait", () => {
    const l = lane();
    let next = 0;
    // Interleaved pushes and runs move the queue's start round its ring while it grows.
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < 40; k++) l.asks.push(ask(next++, 5_000));
      for (let k = 0; k < 25; k++) l.asks.runOne();
    }
    l.drain();
    expect(l.served).toEqual(Array.from({ length: next }, (_, i) => i));
  });

  it("drops the asks whose deadline has passed without ranking them, and ranks the next one in time", () => {
    const l = lane();
    l.asks.push(ask(1, 1_500));
    l.asks.push(ask(2, 1_200));
    l.asks.push(ask(3, 3_000));
    l.asks.push(ask(4, 2_000));
    l.clock.now = 2_000;
    l.asks.runOne();
    expect(l.served).toEqual([3]);
    expect(l.dropped.n).toBe(2);
    l.drain();
    expect(l.served).toEqual([3]);
    expect(l.dropped.n).toBe(3);
  });

  it("says when it was empty, so that its lane is woken once per burst", () => {
    const l = lane();
    expect(l.asks.push(ask(1, 5_000))).toBe(true);
    expect(l.asks.push(ask(2, 5_000))).toBe(false);
    l.drain();
    expect(l.asks.push(ask(3, 5_000))).toBe(true);
  });
});
