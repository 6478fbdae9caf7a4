import { afterEach, describe, expect, it, vi } from "vitest";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const DAY_S = 86_400;
const NOW_S = 1_700_000_000;

let users = 0;
/** `viewers` new users each view `item` at `atS`; the events reach the index at `nowS` (a load, or live). */
function views(index: OrgIndex, item: string, viewers: number, atS: number, nowS = NOW_S): void {
  for (let v = 0; v < viewers; v++) {
    index.applyEvent({ userId: `u${users++}`, itemId: item, family: "engagement", name: "view", weight: 1, previousUserId: null, atS }, nowS);
  }
}

/**
 * Twelve classics, each viewed by 30 to 41 users a year ago (loaded with the organisation's history), and ten
 * newer items: new-k (k = 0…9) viewed by `recentViewers + k` users half a day ago.
 */
function organisation(recentViewers: number): OrgIndex {
  const index = new OrgIndex(1, NOW_S);
  for (let k = 0; k < 12; k++) index.upsertItem(`classic-${k}`, "film", "active", {}, NOW_S - 800 * DAY_S);
  for (let k = 0; k < 10; k++) index.upsertItem(`new-${k}`, "film", "active", {}, NOW_S - 20 * DAY_S);
  for (let k = 0; k < 12; k++) views(index, `classic-${k}`, 41 - k, NOW_S - 365 * DAY_S);
  for (let k = 0; k < 10; k++) views(index, `new-${k}`, recentViewers + k, NOW_S - DAY_S / 2);
  return index;
}

const ids = (results: Array<{ item_id: string }>) => results.map((r) => r.item_id);
/** The results the strategy placed itself (the rest of a page is filled by its fallbacks, each with its reason). */
const own = (results: Array<{ item_id: string; reason: string }>, reason: string) => ids(results.filter((r) => r.reason === reason));
const classics = (n: number) => Array.from({ length: n }, (_, k) => `classic-${k}`);
const newest = Array.from({ length: 10 }, (_, k) => `new-${9 - k}`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("popular", () => {
  it("ranks by all time when the last 30 days hold too little", () => {
    // The tenth new item was viewed by three users: too little to tell the new items apart.
    const results = rankOnIndex(organisation(2), { strategy: "popular", limit: 12 }, NOW_S);
    expect(ids(results)).toEqual(classics(12));
    expect(results.every((r) => r.reason === "popular")).toBe(true);
    expect(results[0]!.score).toBe(41);
  });

  it("stays on the recent window when it holds enough", () => {
    const results = rankOnIndex(organisation(12), { strategy: "popular", limit: 12 }, NOW_S);
    // Only what the last 30 days saw, newest favourites first, though every classic has more views in all; the
    // page's last two places go to new arrivals.
    expect(ids(results).slice(0, 10)).toEqual(newest);
    expect(own(results, "popular")).toEqual(newest);
    expect(results.slice(10).map((r) => r.reason)).toEqual(["new", "new"]);
  });

  it("answers an organisation whose whole history is older than 30 days, and the fallback of other strategies with it", () => {
    const index = new OrgIndex(1, NOW_S);
    for (let k = 0; k < 3; k++) index.upsertItem(`classic-${k}`, "film", "active", {}, NOW_S - 800 * DAY_S);
    for (let k = 0; k < 3; k++) views(index, `classic-${k}`, 5 - k, NOW_S - 365 * DAY_S);
    expect(ids(rankOnIndex(index, { strategy: "popular" }, NOW_S))).toEqual(classics(3));
    expect(ids(rankOnIndex(index, { strategy: "personalized", user_id: "someone-new" }, NOW_S))).toEqual(classics(3));
  });

  it("widens once the recent window fades below enough, with no new event", () => {
    const index = organisation(12);
    const window = index.signals.popularWindow(NOW_S, () => true);
    expect(window.allTime).toBe(false);
    let wallMs = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => wallMs);
    expect(own(rankOnIndex(index, { strategy: "popular", limit: 12 }, window.untilS - 60), "popular")).toEqual(newest);
    // Long past the cache's 100 ms, with the same data: the cached ranking has run out all the same.
    wallMs += 1_000;
    expect(ids(rankOnIndex(index, { strategy: "popular", limit: 12 }, window.untilS + 60))).toEqual(classics(12));
  });

  it("turns to the recent window as a live stream of events fills it", () => {
    const index = organisation(2);
    let wallMs = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => wallMs);
    expect(ids(rankOnIndex(index, { strategy: "popular", limit: 12 }, NOW_S))).toEqual(classics(12));
    for (let k = 0; k < 10; k++) views(index, `new-${k}`, 10, NOW_S);
    wallMs += 1_000;
    expect(own(rankOnIndex(index, { strategy: "popular", limit: 12 }, NOW_S), "popular")).toEqual(newest);
  });
});

describe("trending", () => {
  it("ranks by the trend score alone, whichever window popular uses", () => {
    for (const recentViewers of [2, 12]) {
      const index = organisation(recentViewers);
      const scores = index.catalog.ids.names.map((id, i) => ({ id, i, s: index.signals.trendScore(i, NOW_S) }));
      const expected = scores
        .filter((x) => x.s > 0)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .map((x) => x.id);
      const results = rankOnIndex(index, { strategy: "trending", limit: 30 }, NOW_S);
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(results).slice(0, expected.length)).toEqual(expected);
      expect(own(results, "trending")).toEqual(expected);
      // A year-old classic is never trending, even when popular ranks by all time: it only fills the page, as popular.
      expect(own(results, "trending").some((id) => id.startsWith("classic-"))).toBe(false);
      expect(results.slice(expected.length).every((r) => r.reason === "popular" || r.reason === "new")).toBe(true);
    }
  });
});
