import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parseEvaluateArgs } from "../../bench/evaluation/args.js";
import { readInteractions, type Interaction } from "../../bench/evaluation/csv.js";
import { runEvaluation } from "../../bench/evaluation/evaluation.js";
import type { Scores } from "../../bench/evaluation/metrics.js";
import type { Protocol } from "../../bench/evaluation/split.js";
import { shuffle } from "../../bench/evaluation/split.js";
import { seededRandom } from "../../workers/model/seededRandom.js";

/**
 * Recommendation quality on real data, as `npm run evaluate` measures it, on a fixed slice of ml-latest-small
 * (the ratings of 300 of its 610 users, drawn with seed 1; ../shared/datasets beside the repository). Floors were
 * set from the slice's measured figures (the comments give them) at about nine tenths of each, so that a broken
 * model (factor count, regularisation, a fade that discards old data, the closed form's λ) fails while a change
 * within noise does not.
 */
const RATINGS = fileURLToPath(new URL("../../../shared/datasets/ml-latest-small/ratings.csv", import.meta.url));
const SLICE_USERS = 300;

let slice: Interaction[];
beforeAll(async () => {
  expect(existsSync(RATINGS), `${RATINGS}: the datasets folder must sit beside the repository`).toBe(true);
  const rows = await readInteractions(RATINGS);
  const users = shuffle([...new Set(rows.map((r) => r.user))].sort(), seededRandom(1)).slice(0, SLICE_USERS);
  const kept = new Set(users);
  slice = rows.filter((r) => kept.has(r.user));
});

function evaluate(protocol: Protocol, ...flags: string[]): Map<string, Scores> {
  const args = parseEvaluateArgs(["--data", RATINGS, "--protocol", protocol, ...flags]);
  const report = runEvaluation(slice, args, () => {});
  return new Map(report.results.map((r) => [r.ranker, r.scores]));
}

/** Nine tenths of what the slice measured (P@10 / nDCG@10 in the comments), per protocol. */
const FLOORS: Record<Protocol, Record<string, [number, number]>> = {
  random: {
    personalized: [0.28, 0.32], //              0.3143 / 0.3570 (EASE, λ chosen by the training thread)
    "als-only personalized": [0.275, 0.31], //  0.3053 / 0.3452
    "because-you-viewed": [0.099, 0.111], //    0.1103 / 0.1237
    similar: [0.108, 0.118], //                 0.1200 / 0.1308
  },
  temporal: {
    personalized: [0.104, 0.119], //            0.1157 / 0.1320
    "als-only personalized": [0.091, 0.101], // 0.1010 / 0.1128
    "because-you-viewed": [0.097, 0.113], //    0.1080 / 0.1261
    similar: [0.086, 0.101], //                 0.0957 / 0.1121
  },
};
const SIMILAR = "similar (of the user's latest item)";

describe.each(["random", "temporal"] as const)("on a slice of MovieLens, %s protocol", (protocol) => {
  let served: Map<string, Scores>;
  let alsOnly: Map<string, Scores>;
  beforeAll(() => {
    served = evaluate(protocol);
    alsOnly = evaluate(protocol, "--als-only", "--ease", "300");
  }, 120_000);

  const atLeast = (s: Scores | undefined, [precision, ndcg]: [number, number]) => {
    expect(s!.precision).toBeGreaterThanOrEqual(precision);
    expect(s!.ndcg).toBeGreaterThanOrEqual(ndcg);
  };

  it("recommends personalized items far better than all-time popularity, above its floor", () => {
    const personalized = served.get("personalized")!;
    expect(personalized.precision).toBeGreaterThan(1.5 * served.get("reference: all-time most popular")!.precision);
    atLeast(personalized, FLOORS[protocol].personalized!);
  });

  it("ranks personalized within 3% of the EASE reference of the same split, or above it", () => {
    const personalized = served.get("personalized")!;
    const ease = [...served].find(([name]) => name.startsWith("reference: EASE"))![1];
    expect(personalized.precision).toBeGreaterThanOrEqual(0.97 * ease.precision);
    expect(personalized.ndcg).toBeGreaterThanOrEqual(0.97 * ease.ndcg);
  });

  it("keeps the ALS model, which serves organisations too large for a closed form, above its floor", () => {
    atLeast(alsOnly.get("personalized"), FLOORS[protocol]["als-only personalized"]!);
  });

  it("keeps because-you-viewed and similar above their floors", () => {
    atLeast(served.get("because-you-viewed"), FLOORS[protocol]["because-you-viewed"]!);
    atLeast(served.get(SIMILAR), FLOORS[protocol].similar!);
  });

  it("ranks popular as all-time popularity does when the last 30 days hold too little", () => {
    const popular = served.get("popular")!;
    expect(popular.precision).toBeGreaterThanOrEqual(0.99 * served.get("reference: all-time most popular")!.precision);
  });
});
