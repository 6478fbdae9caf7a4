/**
 * `npm run bench:rank-cost`: CPU time of one `rank()` call per strategy on the benchmark's synthetic organisation,
 * built and trained in this process as the threads do (no HTTP, no PostgreSQL): the strategy's own work and its
 * page, for bodies like bench:recommend's (no `fields`: the page copies each item's stored text).
 * `--help` lists the flags. Prints the median and best round per strategy and variant.
 */
import { toRankRequest } from "../../src/recommend/schema.js";
import { eventWeight } from "../../src/ingest/schemas.js";
import { USER_STRATEGIES, type Strategy } from "../../src/wire/strategies.js";
import { OrgIndex } from "../../workers/index/orgIndex.js";
import { rank } from "../../workers/strategies/rank.js";
import { trainModel } from "../../workers/training/train.js";
import { trainingSet } from "../../workers/training/trainingSet.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import { benchSpec, specLine, LIMIT } from "./recommend/spec.js";
import { itemId, syntheticEvents, syntheticItems, userId } from "../kit/synthetic.js";
import { DEFAULT_ALS } from "../../src/wire/als.js";
import { readFlags, POSITIVE, WHOLE } from "../kit/flags.js";
import { median } from "../kit/table.js";
import { ruleBook } from "../../workers/strategies/rules/ruleBook.js";
import { mixedRuleWires } from "./recommend/mixedRules.js";
import { ownCpuSeconds } from "../kit/proc.js";

const flags = readFlags({
  scale: { help: "0.2 by default; 1 = 100,000 items, 50,000 users, 5,000,000 events" },
  calls: { help: "calls per round (2,000)" },
  rounds: { help: "measured rounds, after one that warms up (5)" },
  strategies: { help: "a,b (personalized,similar,because-you-viewed)" },
  variants: {
    help: "a,b of plain (the default), rules (the merchandising benchmark's 20 rules of mixed actions), diversity (0.5), candidates (500 random ids a request)",
  },
});
const scale = flags.number("scale", 0.2, POSITIVE);
const calls = flags.number("calls", 2000, WHOLE);
const rounds = flags.number("rounds", 5, WHOLE);
const strategies = flags.text("strategies", "personalized,similar,because-you-viewed")!.split(",") as Strategy[];
const VARIANTS = ["plain", "rules", "diversity", "candidates"] as const;
type Variant = (typeof VARIANTS)[number];
const variants = flags.text("variants", "plain")!.split(",") as Variant[];
for (const v of variants) if (!VARIANTS.includes(v)) throw new Error(`--variants: ${v} is not one of ${VARIANTS.join(", ")}`);
const CANDIDATES = 500;

const spec = benchSpec(scale);
const nowS = Date.now() / 1000;
let t = performance.now();
const index = new OrgIndex(1, nowS);
for (const item of syntheticItems(spec)) index.upsertItem(item.item_id, item.item_type, "active", item.attributes, nowS);
for (const e of syntheticEvents(spec)) {
  index.applyEvent(
    {
      userId: e.user_id,
      itemId: e.item_id,
      family: e.event_family,
      name: e.event_name,
      weight: eventWeight(e.event_name),
      previousUserId: null,
      atS: e.at / 1000,
    },
    nowS,
  );
}
console.error(`${specLine(spec)}: index replayed in ${((performance.now() - t) / 1000).toFixed(1)} s`);
t = performance.now();
const { matrix, userVersions, recency, rowMax } = trainingSet(index);
index.model = trainModel(matrix, userVersions, DEFAULT_ALS, undefined, process.env.BENCH_USER_TOP === "0" ? undefined : recency, rowMax);
console.error(`model trained in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const random = seededRandom(7);
console.log(`rank() cost, ${specLine(spec)}; ${calls} calls per round, ${rounds} rounds (µs per call)`);
console.log("strategy             variant      median    best");
let ruleVersion = 0;
for (const variant of variants) {
  ruleBook.set(index.org, ++ruleVersion, variant === "rules" ? mixedRuleWires(spec) : []);
  for (const strategy of strategies) {
    const perRound: number[] = [];
    for (let r = 0; r <= rounds; r++) {
      const bodies = Array.from({ length: calls }, () =>
        toRankRequest(index.org, {
          strategy,
          limit: LIMIT,
          page: 1,
          ...(USER_STRATEGIES.has(strategy)
            ? { user_id: userId(Math.floor(random() * spec.users)) }
            : { context_item_id: itemId(Math.floor(random() * spec.items)) }),
          ...(variant === "diversity" ? { diversity: 0.5 } : {}),
          ...(variant === "candidates" ? { candidates: Array.from({ length: CANDIDATES }, () => itemId(Math.floor(random() * spec.items))) } : {}),
        } as never),
      );
      // CPU time, not wall time: on a shared machine the thread's share of a core varies, its work does not.
      const started = process.cpuUsage();
      for (const body of bodies) rank(index, body, nowS);
      if (r > 0) perRound.push((ownCpuSeconds(started) * 1e6) / calls); // round 0 warms up
    }
    console.log(
      `${strategy.padEnd(20)} ${variant.padEnd(10)} ${median(perRound).toFixed(1).padStart(8)}  ${Math.min(...perRound)
        .toFixed(1)
        .padStart(6)}`,
    );
  }
}
