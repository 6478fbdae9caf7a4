import { createHash } from "node:crypto";
import { HOLDOUT } from "./schemas.js";

const TWO_48 = 2 ** 48;

/**
 * Where a user falls in an experiment, uniformly in [0, 1): the first 48 bits of SHA-256 over the experiment's
 * id, a NUL byte and the user id (UTF-8), over 2^48. Nothing is stored: every process, and anyone who wants to
 * check, computes the same; and two experiments split the same users independently.
 */
export function bucketOf(experimentId: string, userId: string): number {
  return createHash("sha256").update(experimentId).update("\0").update(userId, "utf8").digest().readUIntBE(0, 6) / TWO_48;
}

export interface Split {
  id: string;
  holdout: number;
  variants: ReadonlyArray<{ name: string; share: number }>;
}

/**
 * The variant's index, or -1 for the holdout. The holdout takes the bottom of [0, 1); the rest is cut into the
 * variants' shares in their order (the last takes whatever rounding leaves).
 */
export function assignIndex(split: Split, userId: string): number {
  const u = bucketOf(split.id, userId);
  if (u < split.holdout) return -1;
  let at = (u - split.holdout) / (1 - split.holdout);
  const last = split.variants.length - 1;
  for (let i = 0; i < last; i++) {
    at -= split.variants[i]!.share;
    if (at < 0) return i;
  }
  return last;
}

/** The variant's name, or `holdout`. */
export function assignVariant(split: Split, userId: string): string {
  const i = assignIndex(split, userId);
  return i < 0 ? HOLDOUT : split.variants[i]!.name;
}
