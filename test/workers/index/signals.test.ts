import { describe, expect, it } from "vitest";
import { POPULAR_HALF_LIFE_S, POPULAR_MIN_EVIDENCE, POPULAR_TOP, Signals } from "../../../workers/index/signals.js";

const DAY_S = 86_400;
const NOW_S = 1_700_000_000;
const everyItem = () => true;

/** `events` interactions of `weight` with each of items 0…n−1, at `atS`, ingested at NOW_S. */
function signalsWith(groups: Array<{ items: number[]; events: number; atS: number; weight?: number }>): Signals {
  const signals = new Signals(NOW_S);
  for (const { items, events, atS, weight = 1 } of groups) {
    for (const item of items) for (let e = 0; e < events; e++) signals.countInteraction(item, weight, atS, NOW_S);
  }
  return signals;
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k);

describe("the window popular ranks by", () => {
  it("is the recent one while its tenth best item rests on at least ten events", () => {
    const signals = signalsWith([{ items: range(0, POPULAR_TOP), events: 12, atS: NOW_S }]);
    const window = signals.popularWindow(NOW_S, everyItem);
    expect(window.allTime).toBe(false);
    expect(window.evidence).toBeCloseTo(12, 9);
  });

  it("widens to all time when the last 30 days hold too little", () => {
    // Years of history loaded at once, then a quiet month: one user's few views.
    const signals = signalsWith([
      { items: range(0, 20), events: 40, atS: NOW_S - 400 * DAY_S },
      { items: range(20, 30), events: 1, atS: NOW_S - 2 * DAY_S },
    ]);
    const window = signals.popularWindow(NOW_S, everyItem);
    expect(window.allTime).toBe(true);
    expect(window.evidence).toBeLessThan(POPULAR_MIN_EVIDENCE);
    expect(window.untilS).toBe(Infinity);
  });

  it("widens when only nine items are well supported, however well", () => {
    const signals = signalsWith([
      { items: range(0, POPULAR_TOP - 1), events: 500, atS: NOW_S },
      { items: [POPULAR_TOP - 1], events: POPULAR_MIN_EVIDENCE - 1, atS: NOW_S },
    ]);
    expect(signals.popularWindow(NOW_S, everyItem).allTime).toBe(true);
  });

  it("counts evidence in events, not in their weights", () => {
    // Ten items rated (weight 2) eight times each: sixteen in weight, but eight events.
    const rated = signalsWith([{ items: range(0, POPULAR_TOP), events: 8, atS: NOW_S, weight: 2 }]);
    expect(rated.popularWindow(NOW_S, everyItem)).toMatchObject({ allTime: true, evidence: 8 });
    // A purchase weighs five views but is one event: the evidence is the score over the mean weight.
    const mixed = signalsWith([
      { items: range(0, POPULAR_TOP), events: 10, atS: NOW_S, weight: 1 },
      { items: range(0, POPULAR_TOP), events: 2, atS: NOW_S, weight: 5 },
    ]);
    expect(mixed.popularWindow(NOW_S, everyItem).evidence).toBeCloseTo(20 / (20 / 12), 9);
  });

  it("leaves out inactive items, and asks a catalog of fewer than ten items for its last one", () => {
    const signals = signalsWith([
      { items: range(0, 5), events: 30, atS: NOW_S },
      { items: [5], events: 2, atS: NOW_S },
    ]);
    // Six items with interactions: the sixth, seen twice, is the one that must hold enough.
    expect(signals.popularWindow(NOW_S, everyItem).allTime).toBe(true);
    expect(signals.popularWindow(NOW_S, (i) => i !== 5)).toMatchObject({ allTime: false, evidence: 30 });
  });

  it("widens as the recent window fades with no new event, at the moment it announced", () => {
    const signals = signalsWith([{ items: range(0, POPULAR_TOP), events: 4 * POPULAR_MIN_EVIDENCE, atS: NOW_S }]);
    const window = signals.popularWindow(NOW_S, everyItem);
    expect(window.allTime).toBe(false);
    // Four times the minimum lasts two half-lives.
    expect(window.untilS).toBeCloseTo(NOW_S + 2 * POPULAR_HALF_LIFE_S, 3);
    expect(signals.popularWindow(window.untilS - 60, everyItem).allTime).toBe(false);
    expect(signals.popularWindow(window.untilS + 60, everyItem).allTime).toBe(true);
  });

  it("keeps all time undecayed, with the events older than the recent window that the window dropped", () => {
    const signals = signalsWith([
      { items: [0], events: 3, atS: NOW_S - 5 * 365 * DAY_S, weight: 2 },
      { items: [0], events: 1, atS: NOW_S - DAY_S, weight: 5 },
    ]);
    expect(signals.popularAllTime[0]).toBe(11);
    expect(signals.popular.valueAt(0, NOW_S - DAY_S)).toBeCloseTo(5, 9);
  });
});
