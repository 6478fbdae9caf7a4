import { eventWeight } from "../../../src/ingest/schemas.js";
import type { Interaction } from "./csv.js";

/** A user whose latest interactions were held out: what a good recommender should have offered them. */
export interface HeldOutUser {
  user: string;
  /** Distinct items of the held-out interactions, in the order they happened. */
  relevant: string[];
  /** Those of them the user had not interacted with before the holdout (what exclude_seen leaves reachable). */
  novel: string[];
}

export interface Split {
  /** Everything the index and the model may learn from, in time order. */
  train: Interaction[];
  users: HeldOutUser[];
  /** The moment the evaluation pretends to be: the latest training interaction. */
  nowMs: number;
}

/** Users need this many positive item interactions to be evaluated (some to learn from, one to hold out). */
export const MIN_INTERACTIONS = 3;

/** `holdout`: a whole number of latest interactions per user (≥ 1), or a share of them (0 < holdout < 1). */
export function splitByUser(rows: Interaction[], holdout: number): Split {
  const order = rows.map((_, k) => k).sort((a, b) => rows[a]!.atMs - rows[b]!.atMs || a - b);
  const byUser = new Map<string, number[]>();
  for (const k of order) {
    const list = byUser.get(rows[k]!.user);
    if (list) list.push(k);
    else byUser.set(rows[k]!.user, [k]);
  }
  const heldOut = new Uint8Array(rows.length);
  const users: HeldOutUser[] = [];
  for (const [user, list] of byUser) {
    const positive = list.filter((k) => isPositive(rows[k]!));
    if (positive.length < MIN_INTERACTIONS) continue;
    const n = holdout >= 1 ? Math.min(Math.floor(holdout), positive.length - 1) : Math.max(1, Math.round(holdout * positive.length));
    const cutoff = list.indexOf(positive[positive.length - n]!);
    // Everything from the first held-out interaction on is hidden, so later negatives or views cannot leak it.
    const relevant = new Set<string>();
    for (const k of list.slice(cutoff)) {
      heldOut[k] = 1;
      if (isPositive(rows[k]!)) relevant.add(rows[k]!.item);
    }
    const before = new Set(list.slice(0, cutoff).map((k) => rows[k]!.item));
    users.push({ user, relevant: [...relevant], novel: [...relevant].filter((i) => !before.has(i)) });
  }
  const train = order.filter((k) => !heldOut[k]).map((k) => rows[k]!);
  return { train, users, nowMs: train.length ? train[train.length - 1]!.atMs : Date.now() };
}

/** An interaction that says the user wanted the item (what the server's strategies learn from). */
export function isPositive(r: Interaction): boolean {
  return r.item !== "" && (r.family === "engagement" || r.family === "conversion") && eventWeight(r.name) > 0;
}
