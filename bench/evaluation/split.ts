import { eventWeight } from "../../src/ingest/schemas.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import type { Interaction } from "./csv.js";

/**
 * How the held-out part is chosen. `temporal`: each user's latest interactions (what serving faces: predict
 * what comes next). `random`: a seeded random share of each user's interactions (the protocol of most
 * published tables, e.g. Microsoft Recommenders' stratified split), where recency says little.
 */
export type Protocol = "temporal" | "random";

/** The random protocol holds out this share of each user's interactions (a 75/25 split). */
const RANDOM_TEST_SHARE = 0.25;

/** Splits by the protocol: `holdout` is the temporal share or count; the random protocol holds out a quarter. */
export function splitRows(rows: Interaction[], protocol: Protocol, holdout: number, seed: number): Split {
  return protocol === "random" ? splitAtRandom(rows, RANDOM_TEST_SHARE, seed) : splitByUser(rows, holdout);
}

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
const MIN_INTERACTIONS = 3;

/** `holdout`: a whole number of latest interactions per user (≥ 1), or a share of them (0 < holdout < 1). */
function splitByUser(rows: Interaction[], holdout: number): Split {
  const order = timeOrder(rows);
  const byUser = rowsByUser(rows, order);
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
  return splitOf(rows, order, heldOut, users);
}

/**
 * Holds out a seeded random `share` of each user's positive interactions (at least one, and at least one kept);
 * the user's other events on a held-out item go with it, so nothing about it is left to learn from.
 */
function splitAtRandom(rows: Interaction[], share: number, seed: number): Split {
  const random = seededRandom(seed);
  const order = timeOrder(rows);
  const heldOut = new Uint8Array(rows.length);
  const users: HeldOutUser[] = [];
  for (const [user, list] of rowsByUser(rows, order)) {
    const positive = list.filter((k) => isPositive(rows[k]!));
    if (positive.length < MIN_INTERACTIONS) continue;
    shuffle(positive, random);
    const n = Math.min(positive.length - 1, Math.max(1, Math.round(share * positive.length)));
    const relevant = new Set(positive.slice(0, n).map((k) => rows[k]!.item));
    const kept = new Set<string>();
    for (const k of list) {
      if (relevant.has(rows[k]!.item)) heldOut[k] = 1;
      else if (isPositive(rows[k]!)) kept.add(rows[k]!.item);
    }
    users.push({ user, relevant: [...relevant], novel: [...relevant].filter((i) => !kept.has(i)) });
  }
  return splitOf(rows, order, heldOut, users);
}

function splitOf(rows: Interaction[], order: number[], heldOut: Uint8Array, users: HeldOutUser[]): Split {
  const train = order.filter((k) => !heldOut[k]).map((k) => rows[k]!);
  return { train, users, nowMs: train.length ? train[train.length - 1]!.atMs : Date.now() };
}

function timeOrder(rows: Interaction[]): number[] {
  return rows.map((_, k) => k).sort((a, b) => rows[a]!.atMs - rows[b]!.atMs || a - b);
}

/** Each user's row numbers, in the given order. */
function rowsByUser(rows: Interaction[], order: number[]): Map<string, number[]> {
  const byUser = new Map<string, number[]>();
  for (const k of order) {
    const list = byUser.get(rows[k]!.user);
    if (list) list.push(k);
    else byUser.set(rows[k]!.user, [k]);
  }
  return byUser;
}

export function shuffle<T>(a: T[], random: () => number): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** An interaction that says the user wanted the item (what the server's strategies learn from). */
export function isPositive(r: Interaction): boolean {
  return r.item !== "" && (r.family === "engagement" || r.family === "conversion") && eventWeight(r.name) > 0;
}
