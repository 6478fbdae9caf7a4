/**
 * Offline evaluation of the recommender on an interactions file: holds out each user's latest interactions,
 * rebuilds the index and model from the rest with the server's own code, and measures how well each strategy
 * recovers what was held out. See bench/lib/evaluation/args.ts for the flags.
 */
import { seededRandom } from "../workers/training/linalg.js";
import { parseEvaluateArgs, USAGE, type EvaluateArgs } from "./lib/evaluation/args.js";
import { readInteractions } from "./lib/evaluation/csv.js";
import { easeRankers } from "./lib/evaluation/easeRanker.js";
import { Scoreboard } from "./lib/evaluation/metrics.js";
import { serverRankers, type Ranker } from "./lib/evaluation/rankers.js";
import { replay, trainInto } from "./lib/evaluation/replay.js";
import { formatReport, type EvaluationReport } from "./lib/evaluation/report.js";
import { splitByUser, type HeldOutUser } from "./lib/evaluation/split.js";

const log = (s: string): void => void process.stderr.write(s + "\n");

async function main(args: EvaluateArgs): Promise<void> {
  const rows = await readInteractions(args.data);
  const split = splitByUser(rows, args.holdout);
  const candidates = args.novel ? split.users.filter((u) => u.novel.length > 0) : split.users;
  const users = sample(candidates, args.maxUsers);
  const items = new Set(rows.map((r) => r.item).filter((i) => i !== ""));
  const nowS = split.nowMs / 1000;
  log(`${rows.length} rows read; replaying ${split.train.length} into the index`);
  const index = replay(split.train, items, nowS);
  log(`training ALS (${args.als.factors} factors, ${args.als.iterations} iterations)`);
  const trained = trainInto(index, args.als, nowS);
  const rankers: Ranker[] = serverRankers(index, nowS);
  const extra: Record<string, number> = {};
  if (args.easeLambda > 0) {
    log(`training EASE (λ = ${args.easeLambda}) on ${index.catalog.size} items`);
    const ease = easeRankers(index, nowS, args.easeLambda);
    extra["EASE lambda"] = args.easeLambda;
    extra["EASE training s"] = ease.seconds;
    rankers.push(...ease.rankers);
  }
  const boards = rankers.map(() => new Scoreboard());
  for (const u of users) {
    const relevant = new Set(args.novel ? u.novel : u.relevant);
    rankers.forEach((ranker, k) => {
      const { items: ranked, fellBack } = ranker.recommend(u.user);
      boards[k]!.add(ranked, relevant, fellBack);
    });
  }
  const { cgSteps: _cg, seed: _seed, ...als } = args.als;
  const report: EvaluationReport = {
    data: args.data,
    rows: rows.length,
    items: items.size,
    trainingInteractions: trained.interactions,
    evaluatedUsers: users.length,
    holdout: args.holdout,
    novel: args.novel,
    als,
    trainingMs: trained.ms,
    results: rankers.map((r, k) => ({ ranker: r.name, scores: boards[k]!.scores(items.size) })),
    extra,
  };
  console.log(args.json ? JSON.stringify(report) : formatReport(report));
}

/** A repeatable sample, so that runs with different parameters are scored on the same users. */
function sample(users: HeldOutUser[], max: number): HeldOutUser[] {
  if (users.length <= max) return users;
  const random = seededRandom(7);
  const copy = users.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, max);
}

let args: EvaluateArgs;
try {
  args = parseEvaluateArgs(process.argv.slice(2));
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
main(args).catch((err) => {
  console.error(err);
  process.exit(1);
});
