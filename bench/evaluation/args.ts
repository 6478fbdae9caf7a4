import { DEFAULT_ALS } from "../../src/wire/als.js";
import { readFlags } from "../kit/flags.js";
import { DEFAULT_DEPTH } from "./metrics.js";
import { isGivenSplit } from "./lightGcnSplit.js";
import type { Protocol } from "./split.js";

export type EvaluateArgs = ReturnType<typeof parseEvaluateArgs>;

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

export function parseEvaluateArgs(argv: string[]) {
  const flags = readFlags(
    {
      data: {},
      protocol: {},
      holdout: {},
      seed: {},
      k: {},
      factors: {},
      iterations: {},
      regularization: {},
      alpha: {},
      "max-users": {},
      ease: {},
      "no-ease": { boolean: true },
      novel: { boolean: true },
      "als-only": { boolean: true },
      "item-item": { boolean: true },
      json: { boolean: true },
    },
    argv,
  );
  const data = flags.text("data");
  if (!data) throw new Error("--data FILE is required");
  const positive = { min: Number.MIN_VALUE };
  const whole = { ...positive, integer: true };
  const holdout = flags.number("holdout", 0.2, positive);
  if (holdout > 1 && !Number.isInteger(holdout)) throw new Error("--holdout is a share below 1 or a whole number of interactions");
  const given = isGivenSplit(data);
  const protocol = flags.text("protocol", "temporal");
  if (!given && protocol !== "temporal" && protocol !== "random") throw new Error("--protocol must be temporal or random");
  return {
    data,
    /** `given`: the data is a published split (a folder of train.txt and test.txt), evaluated as published. */
    protocol: given ? ("given" as const) : (protocol as Protocol),
    k: flags.number("k", given ? 20 : DEFAULT_DEPTH, whole),
    holdout,
    seed: flags.number("seed", 1, whole),
    als: {
      ...DEFAULT_ALS,
      factors: flags.number("factors", DEFAULT_ALS.factors, whole),
      iterations: flags.number("iterations", DEFAULT_ALS.iterations, whole),
      regularization: flags.number("regularization", DEFAULT_ALS.regularization, positive),
      alpha: flags.number("alpha", DEFAULT_ALS.alpha, positive),
    },
    maxUsers: flags.number("max-users", Number.MAX_SAFE_INTEGER, whole),
    /** The EASE reference's λ; 0: chosen on a validation part of the training data; −1: no EASE reference. */
    easeLambda: flags.on("no-ease") ? -1 : flags.number("ease", 0, positive),
    alsOnly: flags.on("als-only"),
    itemItem: flags.on("item-item"),
    novel: flags.on("novel"),
    json: flags.on("json"),
  };
}
