import { afterEach, describe, expect, it } from "vitest";
import type { RuleWire } from "../../../src/wire/rules.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { ruleBook } from "../../../workers/strategies/rules/ruleBook.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const ORG = 41;
const NOW_S = 1_000;
let version = 0;

/** Items p0…p39, brands A, B, C, D in turn, item p(k) viewed 40 − k times: `popular` ranks them in order. */
function shop(): OrgIndex {
  const index = new OrgIndex(ORG, 0);
  for (let k = 0; k < 40; k++) index.upsertItem(`p${k}`, "product", "active", { brand: "ABCD"[k % 4]!, price: k }, 0);
  index.upsertItem("off", "product", "inactive", { brand: "A" }, 0);
  for (let k = 0; k < 40; k++)
    for (let u = 0; u < 40 - k; u++)
      index.applyEvent({ userId: `u${u}`, itemId: `p${k}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: NOW_S }, NOW_S);
  return index;
}

function rule(r: Partial<RuleWire> & Pick<RuleWire, "action" | "items">): RuleWire {
  return { name: r.action, scenarios: null, strategies: null, factor: null, position: null, share: null, startsS: null, endsS: null, ...r };
}

function setRules(rules: RuleWire[]): void {
  ruleBook.set(ORG, ++version, rules);
}

const ids = (index: OrgIndex, body: Record<string, unknown>) => rankOnIndex(index, { strategy: "popular", ...body }, NOW_S).map((r) => r.item_id);

afterEach(() => setRules([]));

describe("the rule book of a recommender thread", () => {
  it("keeps the newest version of an organisation's rules when an older one arrives after it", () => {
    const index = shop();
    expect(ruleBook.set(ORG, (version += 2), [rule({ action: "block", items: { item_id: ["p0"] } })])).toBe(true);
    expect(ruleBook.set(ORG, version - 1, [])).toBe(false);
    expect(ids(index, { limit: 2 })).toEqual(["p1", "p2"]);
  });

  it("changes nothing for an organisation whose rules are all deleted", () => {
    const index = shop();
    const before = rankOnIndex(index, { strategy: "popular", limit: 30 }, NOW_S);
    setRules([rule({ action: "pin", position: 1, items: { item_id: ["p9"] } })]);
    expect(ids(index, { limit: 1 })).toEqual(["p9"]);
    setRules([]);
    expect(rankOnIndex(index, { strategy: "popular", limit: 30 }, NOW_S)).toEqual(before);
  });
});

describe("rules applied together", () => {
  it("cut every page from one list: pages of 7 hold no item twice, never a blocked, filtered or inactive one, pins and shares in place", () => {
    const index = shop();
    setRules([
      rule({ action: "block", items: { brand: "D" } }),
      rule({ action: "boost", factor: 10, items: { item_id: ["p30"] } }),
      rule({ action: "bury", factor: 0.1, items: { item_id: ["p1"] } }),
      rule({ name: "cheap", action: "promote", share: 0.3, items: { price: { min: 20 } } }),
      rule({ name: "off", action: "pin", position: 2, items: { item_id: ["off"] } }),
      rule({ name: "p5", action: "pin", position: 4, items: { item_id: ["p5"] } }),
    ]);
    const body = { limit: 7, exclude_item_ids: ["p2"], filters: { brand: ["A", "B", "C"] } };
    const all: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const got = rankOnIndex(index, { strategy: "popular", ...body, page }, NOW_S);
      expect(rankOnIndex(index, { strategy: "popular", ...body, page }, NOW_S)).toEqual(got);
      // round(0.3 × 7) = 2 promoted on every page.
      expect(got.filter((r) => r.reason === "promoted:cheap").length, `page ${page}`).toBe(2);
      all.push(...got.map((r) => r.item_id));
    }
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(28);
    for (const banned of ["off", "p2", "p3", "p7", "p11"]) expect(all).not.toContain(banned);
    expect(all[3]).toBe("p5");
    // p30 (10 views × 10) rises above p1 (39 views ÷ 10) and every item of fewer than 100 views.
    expect(all[0]).toBe("p30");
    expect(all.indexOf("p30")).toBeLessThan(all.indexOf("p1"));
  });

  it("applies a rule only to its scenarios and strategies, and within its window", () => {
    const index = shop();
    setRules([
      rule({ name: "s", action: "pin", position: 1, items: { item_id: ["p10"] }, scenarios: ["home"] }),
      rule({ name: "t", action: "pin", position: 1, items: { item_id: ["p11"] }, strategies: ["trending"] }),
      rule({ name: "w", action: "pin", position: 1, items: { item_id: ["p12"] }, startsS: NOW_S + 10 }),
    ]);
    expect(ids(index, { limit: 1 })).toEqual(["p0"]);
    expect(ids(index, { limit: 1, scenario: "home" })).toEqual(["p10"]);
    expect(rankOnIndex(index, { strategy: "trending", limit: 1 }, NOW_S)[0]!.item_id).toBe("p11");
    expect(rankOnIndex(index, { strategy: "popular", limit: 1 }, NOW_S + 10)[0]!.item_id).toBe("p12");
  });

  it("answers each request by its own rules when requests alternate between rule sets that share their first rules", () => {
    const index = shop();
    setRules([
      rule({ action: "block", items: { brand: "D" } }),
      rule({ action: "block", items: { brand: "C" }, scenarios: ["home"] }),
      rule({ action: "boost", factor: 100, items: { brand: "B" } }),
      rule({ action: "bury", factor: 0.01, items: { brand: "A" }, scenarios: ["home"] }),
    ]);
    const brand = (id: string): string => "ABCD"[Number(id.slice(1)) % 4]!;
    const answers = (scenario: string) => ids(index, { limit: 40, scenario });
    const home = answers("home");
    const other = answers("other");
    // B (boosted ×100 everywhere) first; at home, no C, and A (buried) last.
    expect(home.map(brand).join("")).toBe("B".repeat(10) + "A".repeat(10));
    expect(other.slice(0, 10).map(brand).join("")).toBe("B".repeat(10));
    expect(other.filter((id) => brand(id) === "C").length).toBe(10);
    expect(other.filter((id) => brand(id) === "A").length).toBe(10);
    expect([...home, ...other].map(brand)).not.toContain("D");
    for (let k = 0; k < 3; k++) {
      expect(answers("other")).toEqual(other);
      expect(answers("home")).toEqual(home);
    }
  });
});

describe("boost and bury", () => {
  /** Items q0…q119, brands A, B, C, D in turn, every tenth tagged x, item q(k) viewed 120 − k times. */
  function longShop(): OrgIndex {
    const index = new OrgIndex(ORG, 0);
    for (let k = 0; k < 120; k++) index.upsertItem(`q${k}`, "product", "active", { brand: "ABCD"[k % 4]!, tag: k % 10 === 0 ? "x" : "y" }, 0);
    for (let k = 0; k < 120; k++)
      for (let u = 0; u < 120 - k; u++)
        index.applyEvent(
          { userId: `u${u}`, itemId: `q${k}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: NOW_S },
          NOW_S,
        );
    return index;
  }

  /** The first 50 of popular's 96 (RULES_DEPTH) by (120 − k) × the factor of each rule item k matches. */
  function expected(factor: (k: number) => number): string[] {
    return Array.from({ length: 96 }, (_, k) => k)
      .sort((a, b) => (120 - b) * factor(b) - (120 - a) * factor(a) || a - b)
      .slice(0, 50)
      .map((k) => `q${k}`);
  }

  it("re-sorts the ranking by score × factor whether a rule moves a few of its items or most of them", () => {
    const long = longShop();
    // A tenth of the ranking moves (sorted among themselves by insertion).
    setRules([rule({ action: "boost", factor: 3, items: { tag: "x" } })]);
    expect(ids(long, { limit: 50 })).toEqual(expected((k) => (k % 10 === 0 ? 3 : 1)));
    // Three quarters of it, 72 items, move (past INSERTION_MAX, sorted by the comparator).
    setRules([rule({ action: "bury", factor: 0.47, items: { brand: ["A", "B", "C"] } })]);
    expect(ids(long, { limit: 50 })).toEqual(expected((k) => (k % 4 === 3 ? 1 : 0.47)));
    // Both at once: the rules' factors multiply.
    setRules([rule({ action: "boost", factor: 3, items: { tag: "x" } }), rule({ action: "bury", factor: 0.47, items: { brand: ["A", "B", "C"] } })]);
    expect(ids(long, { limit: 50 })).toEqual(expected((k) => (k % 10 === 0 ? 3 : 1) * (k % 4 === 3 ? 1 : 0.47)));
  });
});
