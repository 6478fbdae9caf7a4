import { DEFAULT_ALS } from "../../src/wire/als.js";
import type { SparseRows } from "../../workers/training/als.js";
import { seededRandom } from "../../workers/model/seededRandom.js";
import type { Model } from "../../workers/model/model.js";
import { trainFactorModel } from "../../workers/training/train.js";

export interface Topics {
  items: number;
  topics: number;
  users: number;
  /** The last this many items are never touched (no learned vector). */
  untouched?: number;
  seed: number;
}

/** Users who each engage with a dozen items of one topic (item % topics, user % topics). */
export function topicMatrix(t: Topics): SparseRows {
  const random = seededRandom(t.seed);
  const perTopic = Math.floor((t.items - (t.untouched ?? 0)) / t.topics);
  const indptr = new Int32Array(t.users + 1);
  const indices: number[] = [];
  for (let u = 0; u < t.users; u++) {
    const row = new Set<number>();
    while (row.size < 12) row.add((u % t.topics) + t.topics * Math.floor(random() * perTopic));
    indices.push(...[...row].sort((a, b) => a - b));
    indptr[u + 1] = indices.length;
  }
  return { rows: t.users, cols: t.items, indptr, indices: Int32Array.from(indices), values: new Float32Array(indices.length).fill(1) };
}

/**
 * A small, quickly trained model of vectors over topicMatrix(t), whatever its size (the service trains one only
 * where EASE's closed form fits): 16 factors, 4 iterations, and a light regularisation, so that items seen by a
 * few users keep vectors of their own, which the search tests tell apart.
 */
export function topicModel(t: Topics): Model {
  return trainFactorModel(topicMatrix(t), new Int32Array(t.users), { ...DEFAULT_ALS, factors: 16, iterations: 4, regularization: 5 });
}
