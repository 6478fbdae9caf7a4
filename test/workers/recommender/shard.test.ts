import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { packBatch } from "../../../src/wire/batchPack.js";
import type { BatchPayload, EventRow } from "../../../src/wire/batchRows.js";
import type { OrgIndex } from "../../../workers/index/orgIndex.js";
import { Shard } from "../../../workers/recommender/shard.js";

/** A seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const USERS = ["u-1", "ünïcødé 用户", "u\\tab", "🎉", "u-5", "u-6"];
const ITEMS = ["i-1", "i-2", "商品-3", "i\\4", "i-5", "i-6", "i-7", "i-8"];
const FAMILIES: Array<[string, string, number]> = [
  ["engagement", "view", 1],
  ["engagement", "like", 2],
  ["engagement", "dislike", -2],
  ["conversion", "purchase", 5],
  ["exposure", "impression", 0],
  ["system", "custom_thing", 1],
];

function events(n: number, seed: number): EventRow[] {
  const r = random(seed);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)]!;
  const base = Date.parse("2026-11-24T06:00:00.000Z");
  return Array.from({ length: n }, (_, i) => {
    const [family, name, weight] = pick(FAMILIES);
    const at = new Date(base + Math.floor(i / 7) * 60_000).toISOString();
    const item = r() < 0.1 ? null : pick(ITEMS);
    const row: EventRow = [1 + Math.floor(r() * 3), randomUUID(), pick(USERS), item, family, name, weight, null, null, null, at];
    if (r() < 0.03) return [row[0], row[1], pick(USERS), null, "system", "identify", 0, `anon-${i % 5}`, null, null, at];
    if (r() < 0.05) row[2] = `anon-${i % 5}`;
    return row;
  });
}

const NOW_S = Date.parse("2026-11-24T08:00:00.000Z") / 1000;

/** What strategies read of an organisation's index, as plain values. */
function stateOf(index: OrgIndex): unknown {
  const { people, catalog, signals } = index;
  const history = people.ids.names.map((name) => {
    const u = people.find(name);
    const h = people.history;
    const rows = [];
    for (let k = h.start(u); k < h.start(u) + h.size(u); k++) rows.push([h.cols.key[k], h.cols.value[k], h.cols.time[k], h.cols.kind[k]]);
    return [name, u, rows];
  });
  const related = catalog.ids.names.map((_, i) => {
    const also: number[][] = [];
    const bought: number[][] = [];
    signals.alsoViewed.forEachNeighbour(i, (b, s, n) => also.push([b, s, n]));
    signals.boughtTogether.forEachNeighbour(i, (b, s, n) => bought.push([b, s, n]));
    return [also, bought, signals.support(i), signals.repeatRate(i)];
  });
  return {
    users: people.ids.names,
    items: catalog.ids.names,
    history,
    related,
    // Each index's decay counts from its own creation: compare the decayed values at one moment.
    popular: catalog.ids.names.map((_, i) => signals.popular.valueAt(i, NOW_S).toPrecision(9)),
    popularAllTime: catalog.ids.names.map((_, i) => signals.popularAllTime[i]),
    trend: catalog.ids.names.map((_, i) => signals.trendScore(i, NOW_S).toPrecision(9)),
    events: index.eventsSinceTraining,
  };
}

function bothWays(batches: BatchPayload[], notStored: number[] | null, owns: (org: number) => boolean): [Shard, Shard] {
  const unpacked = new Shard();
  const inPlace = new Shard();
  for (const b of batches) {
    unpacked.apply(b, notStored, owns);
    inPlace.applyPacked(packBatch(b), notStored, owns);
  }
  return [unpacked, inPlace];
}

describe("a committed batch applied from its packed bytes", () => {
  it("leaves every organisation's index exactly as applying the unpacked batch does", () => {
    const batches = [0, 1, 2, 3].map((seed) => ({ events: events(800, seed), items: [], users: [] }));
    const [unpacked, inPlace] = bothWays(batches, null, () => true);
    for (const org of [1, 2, 3]) {
      expect(inPlace.org(org).eventsSinceTraining).toBeGreaterThan(100);
      expect(stateOf(inPlace.org(org))).toEqual(stateOf(unpacked.org(org)));
    }
    // identify aliases were followed: an anonymous id resolves to its user.
    expect(inPlace.org(1).people.find("anon-0")).toBe(unpacked.org(1).people.find("anon-0"));
  });

  it("skips the events the database already held and those of organisations another shard owns", () => {
    const batch = { events: events(500, 9), items: [], users: [] };
    const notStored = [0, 3, 17, 250, 499];
    const [unpacked, inPlace] = bothWays([batch], notStored, (org) => org !== 2);
    expect([...inPlace.all()].map((i) => i.org).sort()).toEqual([1, 3]);
    for (const org of [1, 3]) expect(stateOf(inPlace.org(org))).toEqual(stateOf(unpacked.org(org)));
  });

  it("applies a batch holding items or users from its unpacked records, items first", () => {
    const batch: BatchPayload = {
      events: events(200, 4),
      items: [
        [1, "i-1", "shoe", "active", { colour: "red" }, null],
        [1, "new-item", "hat", "inactive", {}, "2026-11-01T00:00:00.000Z"],
      ],
      users: [[1, "u-9", "inactive", {}, "2026-11-01T00:00:00.000Z"]],
    };
    const [unpacked, inPlace] = bothWays([batch], null, () => true);
    expect(inPlace.org(1).catalog.ids.find("new-item")).toBeGreaterThanOrEqual(0);
    expect(stateOf(inPlace.org(1))).toEqual(stateOf(unpacked.org(1)));
  });
});

describe("a batch applied in steps", () => {
  it("yields every hundred records and leaves the index as applying it at once does", () => {
    const batch: BatchPayload = {
      events: events(600, 8),
      items: Array.from({ length: 450 }, (_, k) => [1 + (k % 3), `step-item-${k}`, "shoe", "active", { size: k % 7 }, null]),
      users: [[1, "u-1", "inactive", {}, "2026-11-01T00:00:00.000Z"]],
    };
    const atOnce = new Shard();
    atOnce.applyPacked(packBatch(batch), null, () => true);
    const stepped = new Shard();
    let steps = 0;
    for (const _ of stepped.applyPackedSteps(packBatch(batch), null, () => true)) steps++;
    expect(steps).toBeGreaterThanOrEqual(9); // 450 items, a user and the engagement events: at least 900 records
    for (const org of [1, 2, 3]) expect(stateOf(stepped.org(org))).toEqual(stateOf(atOnce.org(org)));
  });

  it("ends a step before a hundred records when they are costly (items of a thousand attribute values each)", () => {
    const batch: BatchPayload = {
      events: [],
      items: Array.from({ length: 99 }, (_, k) => [
        1,
        `wide-${k}`,
        "shoe",
        "active",
        { tags: Array.from({ length: 1_000 }, (_, t) => `tag-${k}-${t}`) },
        null,
      ]),
      users: [],
    };
    const steps = [...new Shard().applyPackedSteps(packBatch(batch), null, () => true)];
    // By count, 99 records are one step (no yield); 99,000 distinct tokens take far more than 2 ms on any machine.
    expect(steps.length).toBeGreaterThanOrEqual(2);
  });

  it("reads an events-only batch in place in one step", () => {
    const shard = new Shard();
    const steps = [...shard.applyPackedSteps(packBatch({ events: events(2000, 3), items: [], users: [] }), null, () => true)];
    expect(steps).toHaveLength(0);
    expect(shard.org(1).eventsSinceTraining).toBeGreaterThan(100);
  });
});

describe("a committed batch a shard cannot apply whole", () => {
  it("reads the rest of a batch its in-place reader cannot follow with msgpackr, applying every event once", () => {
    const batch = { events: events(300, 5), items: [], users: [] };
    // A row of another length stops the in-place reader at event 120; msgpackr reads it (and the rest) all the same.
    const odd = { ...batch, events: batch.events.map((e, i) => (i === 120 ? ([...e, "extra"] as unknown as EventRow) : e)) };
    const clean = new Shard();
    clean.apply(batch, null, () => true);
    const recovered = new Shard();
    recovered.applyPacked(packBatch(odd), null, () => true);
    expect(recovered.skips.flush({})).toBe(0);
    for (const org of [1, 2, 3]) expect(stateOf(recovered.org(org))).toEqual(stateOf(clean.org(org)));
  });

  it("skips a record that throws, counts it, and applies the rest of the batch, its own organisation's included", () => {
    const batch: BatchPayload = { events: events(300, 6), items: [[2, "fine", "shoe", "active", {}, null]], users: [] };
    // Stands in for any record whose application throws: attributes that cannot be read.
    const unreadable = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("unreadable attributes");
        },
      },
    );
    const clean = new Shard();
    clean.apply(batch, null, () => true);
    const shard = new Shard();
    shard.apply({ ...batch, items: [[2, "broken", "shoe", "active", unreadable, null], ...batch.items] }, null, () => true);
    expect(shard.skips.flush({})).toBe(1);
    for (const org of [1, 3]) expect(stateOf(shard.org(org))).toEqual(stateOf(clean.org(org)));
    expect(shard.org(2).eventsSinceTraining).toBe(clean.org(2).eventsSinceTraining);
    expect(shard.org(2).catalog.ids.find("fine")).toBeGreaterThanOrEqual(0);
  });

  it("skips bytes that are no batch at all, as one record, without throwing", () => {
    const shard = new Shard();
    shard.applyPacked(Uint8Array.from([0xc1, 0xff, 0x00]), null, () => true);
    expect(shard.skips.flush({})).toBe(1);
    expect([...shard.all()]).toEqual([]);
  });
});
