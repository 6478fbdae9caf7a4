import { describe, expect, it } from "vitest";
import { askFromWire, askToWire, batchToWire, packMessage, readToShard, unpackMessage, type ToShard } from "../../src/wire/shardMessages.js";
import { packIdList } from "../../src/wire/idList.js";
import type { RankRequest } from "../../src/wire/rank.js";

const bare: RankRequest = {
  org: 7,
  strategy: "personalized",
  userId: "u-1",
  contextItemId: undefined,
  contextItemIds: undefined,
  candidates: undefined,
  diversity: undefined,
  maxPer: undefined,
  itemType: undefined,
  filters: undefined,
  excludeItemIds: undefined,
  excludeSeen: true,
  fields: undefined,
  limit: 20,
  page: 1,
  scenario: undefined,
};
const full: RankRequest = {
  org: 3,
  strategy: "similar",
  userId: "ü 2",
  contextItemId: "item-9",
  contextItemIds: ["item-9", "item-10"],
  candidates: packIdList(["c1", "c2", "c3"]),
  diversity: 0.35,
  maxPer: { brand: 2, color: 1 },
  itemType: "book",
  filters: { brand: ["a", "b"], price: { min: 1, max: 9.5 } },
  excludeItemIds: ["x", "y"],
  excludeSeen: false,
  fields: ["title", "price"],
  limit: 100,
  page: 100,
  scenario: "product-page",
};

describe("the messages between the front thread and the recommender threads", () => {
  it("carry a rank ask through msgpack and back unchanged, absent fields included", () => {
    for (const req of [bare, full]) {
      const sent: ToShard = { t: "rank", asks: [askToWire({ id: 41, req, deadline: 1_790_000_000_123.25 })] };
      const got = unpackMessage<ToShard>(packMessage(sent));
      expect(got.t).toBe("rank");
      if (got.t !== "rank") return;
      expect(askFromWire(got.asks[0]!)).toStrictEqual({ id: 41, req, deadline: 1_790_000_000_123.25 });
    }
  });
});

describe("a committed batch on its way to a shard", () => {
  it("travels beside its header, so the shard reads the very bytes it was given, with notStored and xid", () => {
    const payload = new Uint8Array([1, 2, 3, 4]);
    const m = readToShard(batchToWire(payload, [2, 5], "771"));
    expect(m).toEqual({ t: "batch", payload, notStored: [2, 5], xid: "771" });
    expect(m.t === "batch" && m.payload).toBe(payload);
  });

  it("reads every other message packed whole", () => {
    const catchUp: ToShard = { t: "catchUp", id: 9 };
    expect(readToShard(packMessage(catchUp))).toEqual(catchUp);
  });
});
