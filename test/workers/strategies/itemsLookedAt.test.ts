import { beforeAll, describe, expect, it } from "vitest";
import type { RuleWire } from "../../../src/wire/rules.js";
import { DEFAULT_ALS } from "../../../src/wire/als.js";
import { OrgIndex } from "../../../workers/index/orgIndex.js";
import { seededRandom } from "../../../workers/model/seededRandom.js";
import { ruleBook } from "../../../workers/strategies/rules/ruleBook.js";
import { work } from "../../../workers/strategies/workBudget.js";
import { trainModel } from "../../../workers/training/train.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";
import { rankOnIndex } from "../../helpers/rankOnIndex.js";

const ORG = 77;
const ITEMS = 20_000;
const NOW_S = 100_000;
/** Items one request may look at here: a few cached tops' worth, far below the catalog's 20,000. */
const LOOKED_AT_MAX = 6_000;

const rule = (r: Partial<RuleWire> & Pick<RuleWire, "action" | "items">): RuleWire => ({
  name: r.action,
  scenarios: null,
  strategies: null,
  factor: null,
  position: null,
  share: null,
  startsS: null,
  endsS: null,
  ...r,
});

/** A shop of 20,000 items and `users` users of 20 views each, its model trained, and the rules below set. */
function shop(users: number): OrgIndex {
  const index = new OrgIndex(ORG, 0);
  const random = seededRandom(5);
  for (let i = 0; i < ITEMS; i++) index.upsertItem(`i${i}`, "product", "active", { brand: `b${i % 50}`, topic: `t${i % 200}`, price: i % 300 }, i);
  // Views skewed towards low item numbers, so that popular has a head and the model has neighbours.
  for (let u = 0; u < users; u++)
    for (let k = 0; k < 20; k++) {
      const item = Math.floor(ITEMS * random() ** 3);
      index.applyEvent(
        { userId: `u${u}`, itemId: `i${item}`, family: "engagement", name: "view", weight: 1, previousUserId: null, atS: NOW_S - k },
        NOW_S,
      );
    }
  const { matrix, userVersions, recency } = trainingSet(index);
  // Few factors: the vectors' quality is not what is measured here, and 20,000 items of 64 would take a minute.
  index.model = trainModel(matrix, userVersions, { ...DEFAULT_ALS, factors: 8, iterations: 2 }, undefined, recency);
  ruleBook.set(ORG, 1, [
    rule({ action: "block", items: { brand: "b3" } }),
    rule({ action: "boost", factor: 3, items: { topic: ["t1", "t2"] } }),
    rule({ action: "bury", factor: 0.5, items: { price: { min: 250 } } }),
    rule({ name: "far", action: "promote", share: 0.2, items: { topic: "t199" } }),
    rule({ name: "rare", action: "pin", position: 2, items: { item_id: ["i19999"] } }),
  ]);
  return index;
}

/** Items ranking `body` visited (work.itemsVisited), after one warm-up of the same request (shared tops built). */
function itemsLookedAt(index: OrgIndex, body: Record<string, unknown>): { lookedAt: number; results: number } {
  rankOnIndex(index, body, NOW_S);
  const results = rankOnIndex(index, body, NOW_S).length;
  return { lookedAt: work.itemsVisited, results };
}

const candidates = Array.from({ length: 500 }, (_, k) => `i${(k * 37) % ITEMS}`);

describe.each([
  ["EASE (600 users)", 600, true],
  ["item-item co-occurrence (1,600 users)", 1_600, false],
])("the items one rank request looks at, personalized by %s", (_model, users, closedForm) => {
  let index: OrgIndex;
  beforeAll(() => {
    index = shop(users);
    expect(index.model!.closedForm !== undefined).toBe(closedForm);
  });

  it.each([
    ["popular with rules", { strategy: "popular", limit: 20 }],
    ["popular, page 5, with rules", { strategy: "popular", limit: 20, page: 5 }],
    ["personalized with rules", { strategy: "personalized", user_id: "u7", limit: 20 }],
    ["personalized with rules and diversity", { strategy: "personalized", user_id: "u8", limit: 20, diversity: 0.5 }],
    ["personalized with rules and max_per", { strategy: "personalized", user_id: "u9", limit: 20, max_per: { brand: 2 } }],
    ["personalized re-ranking 500 candidates", { strategy: "personalized", user_id: "u10", limit: 20, candidates }],
    ["popular re-ranking 500 candidates", { strategy: "popular", limit: 20, candidates }],
    ["similar with rules", { strategy: "similar", context_item_id: "i5", limit: 20 }],
    ["popular with a filter most items pass", { strategy: "popular", limit: 20, filters: { price: { max: 280 } } }],
  ])("stays far below the catalog's size: %s", (_name, body) => {
    const { lookedAt, results } = itemsLookedAt(index, body);
    expect(results).toBeGreaterThan(0);
    expect(lookedAt).toBeLessThan(LOOKED_AT_MAX);
  });

  it("counts a scan when one happens: a filter no item passes looks at the catalog until the work budget ends it", () => {
    const { lookedAt, results } = itemsLookedAt(index, { strategy: "popular", limit: 20, filters: { brand: "nobody" } });
    expect(results).toBe(0);
    expect(lookedAt).toBeGreaterThan(LOOKED_AT_MAX);
  });
});
