import type { OrgIndex } from "../../workers/index/orgIndex.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import type { EvaluateArgs } from "./args.js";
import type { Interaction } from "./csv.js";
import type { GivenSplit } from "./lightGcnSplit.js";
import { Scoreboard } from "./metrics.js";
import { serverRankers, type Ranker } from "./rankers.js";
import { binaryPattern } from "../../workers/training/ease.js";
import { fitItemItem, ITEM_ITEM } from "../../workers/training/itemItem.js";
import { trainingSet } from "../../workers/training/trainingSet.js";
import { USER_USER } from "../../workers/training/userUser.js";
import { binaryMatrix, chooseEaseLambda, cooccurrenceReference, EASE_MAX_SIDE, easeRanker, GF_CF, popularityReference } from "./references.js";
import { replay, trainInto } from "./replay.js";
import { shuffle, splitRows, type HeldOutUser, type Split } from "./split.js";

export type EvaluationReport = ReturnType<typeof runEvaluation>;

/**
 * Splits the rows by the protocol (or takes the published split as given), rebuilds the index and model from the
 * training part with the server's own code, and scores every served strategy and the references on the held-out
 * part. `log` hears the progress.
 */
export function runEvaluation(data: Interaction[] | GivenSplit, args: EvaluateArgs, log: (s: string) => void) {
  let t = performance.now();
  const given = Array.isArray(data) ? undefined : data;
  const rows = given ? given.split.train : (data as Interaction[]);
  const items = given ? given.items : [...new Set(rows.map((r) => r.item).filter((i) => i !== ""))];
  const split = given ? given.split : splitRows(rows, args.protocol === "given" ? "random" : args.protocol, args.holdout, args.seed);
  const users = sample(args.novel ? split.users.filter((u) => u.novel.length > 0) : split.users, args.maxUsers);
  log(`${args.protocol} split: ${split.train.length} rows to learn from, ${users.length} users to evaluate`);
  const nowS = split.nowMs / 1000;
  const index = replay(split.train, items, nowS);
  log(`replayed into the index in ${seconds(t)} s; training the model (${args.als.factors} factors, ${args.als.iterations} iterations)`);
  const trained = trainInto(index, args.als);
  if (args.alsOnly && index.model) {
    index.model.closedForm = undefined;
    index.model.itemItem = undefined;
  }
  if (args.itemItem && index.model) {
    index.model.closedForm = undefined;
    index.model.itemItem ??= fitItemItem(binaryPattern(trainingSet(index).matrix)).rows;
  }
  log(`trained in ${(trained.ms / 1000).toFixed(2)} s`);
  const latest = latestItems(split);
  const rankers: Ranker[] = serverRankers(index, nowS, (u) => latest.get(u), args.k);
  const extra: Record<string, number | string> = { "model training s": round(trained.ms / 1000), personalized: modelOf(index) };
  rankers.push(...references(split, items, args, extra, log));
  const boards = rankers.map(() => new Scoreboard(args.k));
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
  return {
    data: args.data,
    protocol: args.protocol,
    k: args.k,
    rows: given ? given.rows : rows.length,
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
}

/**
 * All-time popularity, the normalised item-item co-occurrence of GF-CF with every pair kept, and EASE on the same
 * training rows (EASE's λ chosen on a validation part of them), where a closed form fits.
 */
function references(split: Split, items: string[], args: EvaluateArgs, extra: Record<string, number | string>, log: (s: string) => void): Ranker[] {
  const full = binaryMatrix(split.train, items);
  let t = performance.now();
  const { beta, gamma, delta } = ITEM_ITEM;
  const out = [
    popularityReference(full, args.k),
    cooccurrenceReference(full, "reference: GF-CF linear filter", GF_CF, args.k),
    cooccurrenceReference(full, `reference: item-item β ${beta} γ ${gamma} δ ${delta}, every item`, ITEM_ITEM, args.k),
  ];
  log(`co-occurrence reference ready in ${seconds(t)} s`);
  const side = Math.min(full.matrix.rows, full.matrix.cols);
  if (args.easeLambda < 0) return out;
  if (side > EASE_MAX_SIDE) {
    log(`EASE reference skipped: ${full.matrix.rows} users and ${full.matrix.cols} items (it needs one side at most ${EASE_MAX_SIDE})`);
    return out;
  }
  let lambda = args.easeLambda;
  t = performance.now();
  if (lambda === 0) {
    const inner = splitRows(split.train, args.protocol === "given" ? "random" : args.protocol, args.holdout, args.seed + 1);
    log(`choosing EASE's λ on a validation split of the training rows (${inner.users.length} users)`);
    lambda = chooseEaseLambda(binaryMatrix(inner.train, items), inner.users, log);
    extra["EASE λ"] = `${lambda} (best on validation)`;
  } else extra["EASE λ"] = `${lambda} (given)`;
  const started = performance.now();
  out.push(easeRanker(full, lambda, args.k));
  extra["EASE training s"] = round((performance.now() - started) / 1000);
  log(`EASE reference ready in ${seconds(t)} s`);
  return out;
}

function modelOf(index: OrgIndex): string {
  const cf = index.model?.closedForm;
  if (cf) return `EASE in the ${cf.form} form, λ ${cf.lambda} (chosen by the training thread on validation splits)`;
  const rows = index.model?.itemItem;
  if (rows) {
    const { beta, gamma, delta, rowMax } = ITEM_ITEM;
    const { weight, neighbours, power } = USER_USER;
    const lists =
      index.model?.userTop && weight > 0
        ? `; kept lists blended with a user-user term (a ${weight}, ${neighbours} nearest users, similarity^${power})`
        : "";
    return `item-item (β ${beta}, γ ${gamma}, δ ${delta}), at most ${rowMax} neighbours an item: ${rows.neighbours.length} pairs kept${lists}`;
  }
  return "ALS";
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
