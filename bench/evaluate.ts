/**
 * Offline evaluation of the recommender on an interactions file: holds out part of each user's interactions
 * (latest or at random), rebuilds the index and model from the rest with the server's own code, and measures
 * how well each strategy recovers what was held out, beside textbook references of the same split.
 * See bench/lib/evaluation/args.ts for the flags.
 */
import { parseEvaluateArgs, USAGE, type EvaluateArgs } from "./lib/evaluation/args.js";
import { readInteractions } from "./lib/evaluation/csv.js";
import { Scoreboard } from "./lib/evaluation/metrics.js";
import { serverRankers, type Ranker } from "./lib/evaluation/rankers.js";
import { binaryMatrix, chooseEaseLambda, EASE_MAX_SIDE, easeRanker, popularityReference } from "./lib/evaluation/references.js";
import { replay, trainInto } from "./lib/evaluation/replay.js";
import { formatReport, type EvaluationReport } from "./lib/evaluation/report.js";
import { shuffle, splitRows, type HeldOutUser, type Split } from "./lib/evaluation/split.js";
import type { OrgIndex } from "../workers/index/orgIndex.js";
import { seededRandom } from "../workers/training/linalg.js";

const log = (s: string): void => void process.stderr.write(s + "\n");

async function main(args: EvaluateArgs): Promise<void> {
  let t = performance.now();
  const rows = await readInteractions(args.data);
  const items = [...new Set(rows.map((r) => r.item).filter((i) => i !== ""))];
  const split = splitRows(rows, args.protocol, args.holdout, args.seed);
  const users = sample(args.novel ? split.users.filter((u) => u.novel.length > 0) : split.users, args.maxUsers);
  log(`${rows.length} rows, ${items.length} items read in ${seconds(t)} s; ${args.protocol} split: ${split.train.length} rows to learn from, ${users.length} users to evaluate`);
  const nowS = split.nowMs / 1000;
  t = performance.now();
  const index = replay(split.train, items, nowS);
  log(`replayed into the index in ${seconds(t)} s; training the model (${args.als.factors} factors, ${args.als.iterations} iterations)`);
  const trained = trainInto(index, args.als, nowS);
  if (args.alsOnly && index.model) index.model.closedForm = undefined;
  log(`trained in ${(trained.ms / 1000).toFixed(2)} s`);
  const latest = latestItems(split);
  const rankers: Ranker[] = serverRankers(index, nowS, (u) => latest.get(u));
  const extra: Record<string, number | string> = { "model training s": round(trained.ms / 1000), personalized: modelOf(index) };
  rankers.push(...references(split, items, args, extra));
  const boards = rankers.map(() => new Scoreboard());
  t = performance.now();
  for (const u of users) {
    const relevant = new Set(args.novel ? u.novel : u.relevant);
    rankers.forEach((ranker, k) => {
      const { items: ranked, fellBack } = ranker.recommend(u.user);
      boards[k]!.add(ranked, relevant, fellBack);
    });
  }
  log(`ranked for ${users.length} users in ${seconds(t)} s`);
  const { cgSteps: _cg, seed: _seed, ...als } = args.als;
  const report: EvaluationReport = {
    data: args.data,
    protocol: args.protocol,
    rows: rows.length,
    items: items.length,
    trainingInteractions: trained.interactions,
    evaluatedUsers: users.length,
    holdout: args.holdout,
    novel: args.novel,
    als,
    trainingMs: trained.ms,
    results: rankers.map((r, k) => ({ ranker: r.name, scores: boards[k]!.scores(items.length) })),
    extra,
  };
  console.log(args.json ? JSON.stringify(report) : formatReport(report));
}

/** All-time popularity and EASE on the same training rows; EASE's λ chosen on a validation part of them. */
function references(split: Split, items: string[], args: EvaluateArgs, extra: Record<string, number | string>): Ranker[] {
  const full = binaryMatrix(split.train, items);
  const out = [popularityReference(full)];
  const side = Math.min(full.matrix.rows, full.matrix.cols);
  if (side > EASE_MAX_SIDE) {
    log(`EASE reference skipped: ${full.matrix.rows} users and ${full.matrix.cols} items (it needs one side at most ${EASE_MAX_SIDE})`);
    return out;
  }
  let lambda = args.easeLambda;
  const t = performance.now();
  if (lambda === 0) {
    const inner = splitRows(split.train, args.protocol, args.holdout, args.seed + 1);
    log(`choosing EASE's λ on a validation split of the training rows (${inner.users.length} users)`);
    lambda = chooseEaseLambda(binaryMatrix(inner.train, items), inner.users, log);
    extra["EASE λ"] = `${lambda} (best on validation)`;
  } else extra["EASE λ"] = `${lambda} (given)`;
  const started = performance.now();
  out.push(easeRanker(full, lambda));
  extra["EASE training s"] = round((performance.now() - started) / 1000);
  log(`EASE reference ready in ${seconds(t)} s`);
  return out;
}

function modelOf(index: OrgIndex): string {
  const cf = index.model?.closedForm;
  return cf ? `EASE in the ${cf.form} form, λ ${cf.lambda} (chosen by the training thread on validation splits)` : "ALS";
}

/** Each user's most recent training item: the context `similar` is asked about. */
function latestItems(split: Split): Map<string, string> {
  const latest = new Map<string, string>();
  for (const r of split.train) if (r.item) latest.set(r.user, r.item);
  return latest;
}

/** A repeatable sample, so that runs with different parameters are scored on the same users. */
function sample(users: HeldOutUser[], max: number): HeldOutUser[] {
  return users.length <= max ? users : shuffle(users.slice(), seededRandom(7)).slice(0, max);
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const round = (x: number) => Math.round(x * 100) / 100;

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
