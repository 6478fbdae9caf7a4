import { parseArgs } from "node:util";
import { DEFAULT_ALS, type AlsParams } from "../../src/wire/als.js";
import { DEFAULT_DEPTH } from "./metrics.js";
import { isGivenSplit } from "./lightGcnSplit.js";
import type { Protocol } from "./split.js";

export interface EvaluateArgs {
  data: string;
  /** `given`: the data is a published split (a folder of train.txt and test.txt), evaluated as published. */
  protocol: Protocol | "given";
  /** The depth of every figure (P@k, Recall@k, nDCG@k): 20 on a given split as LightGCN's tables, else 10. */
  k: number;
  /** The temporal protocol's held-out share (or count) of each user's latest interactions. */
  holdout: number;
  /** Seeds the random protocol's split. */
  seed: number;
  als: AlsParams;
  /** Evaluate at most this many users (a seeded sample), to keep runs on large files short. */
  maxUsers: number;
  /** The EASE reference's λ; 0: chosen on a validation part of the training data; −1: no EASE reference. */
  easeLambda: number;
  /** Serve personalized by ALS even where a closed form fits (how larger organisations are served). */
  alsOnly: boolean;
  /** Serve personalized by the item-item model even where a closed form fits (how larger organisations are served). */
  itemItem: boolean;
  /** Count only held-out items new to the user (users without any are left out). */
  novel: boolean;
  json: boolean;
}

export const USAGE = `usage: npm run evaluate -- --data FILE|FOLDER [--protocol temporal|random] [--holdout 0.2|N] [--seed N] [--k N]
       [--factors N] [--iterations N] [--regularization X] [--alpha X] [--max-users N] [--novel] [--ease LAMBDA | --no-ease] [--als-only | --item-item] [--json]
FILE: CSV with a header row holding user_id,item_id,event_name,timestamp (ISO 8601 or epoch ms),
      or MovieLens ratings.csv (userId,movieId,rating,timestamp): every rating an engagement.
FOLDER: a published split in LightGCN's layout (train.txt, test.txt: "user item item …" per line), e.g. Gowalla:
      trained on train.txt, every user of test.txt scored on every item unseen in training, at depth 20.
--k N: the depth of every figure (default 10; 20 on a published split).
--protocol temporal: each user's latest --holdout (default 20%) is held out; random: a seeded 25% of each user's.
--ease LAMBDA: the EASE reference's λ (default: the best on a validation part of the training data); --no-ease: none.
--als-only: personalized by ALS (no closed form, no item-item model).
--item-item: personalized by the item-item model, as organisations too large for a closed form are served.`;

function number(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

export function parseEvaluateArgs(argv: string[]): EvaluateArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: "string" },
      protocol: { type: "string", default: "temporal" },
      holdout: { type: "string" },
      seed: { type: "string" },
      k: { type: "string" },
      factors: { type: "string" },
      iterations: { type: "string" },
      regularization: { type: "string" },
      alpha: { type: "string" },
      "max-users": { type: "string" },
      ease: { type: "string" },
      "no-ease": { type: "boolean", default: false },
      novel: { type: "boolean", default: false },
      "als-only": { type: "boolean", default: false },
      "item-item": { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.data) throw new Error("--data FILE is required");
  const integer = (v: string | undefined, fallback: number, name: string) => {
    const n = number(v, fallback, name);
    if (!Number.isInteger(n)) throw new Error(`--${name} must be a whole number`);
    return n;
  };
  const holdout = number(values.holdout, 0.2, "holdout");
  if (holdout > 1 && !Number.isInteger(holdout)) throw new Error("--holdout is a share below 1 or a whole number of interactions");
  const given = isGivenSplit(values.data);
  if (!given && values.protocol !== "temporal" && values.protocol !== "random") throw new Error("--protocol must be temporal or random");
  return {
    data: values.data,
    protocol: given ? "given" : (values.protocol as Protocol),
    k: integer(values.k, given ? 20 : DEFAULT_DEPTH, "k"),
    holdout,
    seed: integer(values.seed, 1, "seed"),
    als: {
      ...DEFAULT_ALS,
      factors: integer(values.factors, DEFAULT_ALS.factors, "factors"),
      iterations: integer(values.iterations, DEFAULT_ALS.iterations, "iterations"),
      regularization: number(values.regularization, DEFAULT_ALS.regularization, "regularization"),
      alpha: number(values.alpha, DEFAULT_ALS.alpha, "alpha"),
    },
    maxUsers: integer(values["max-users"], Number.MAX_SAFE_INTEGER, "max-users"),
    easeLambda: values["no-ease"] ? -1 : values.ease === undefined ? 0 : number(values.ease, 0, "ease"),
    alsOnly: values["als-only"],
    itemItem: values["item-item"],
    novel: values.novel,
    json: values.json,
  };
}
