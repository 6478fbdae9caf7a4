import type { OrgIndex } from "../../../workers/index/orgIndex.js";
import type { SparseRows } from "../../../workers/training/als.js";
import { trainEase, type EaseModel } from "../../../workers/training/ease.js";
import { trainingSet } from "../../../workers/training/trainingSet.js";
import { TopK } from "../../../workers/strategies/topK.js";
import { DEPTH, type Ranker } from "./rankers.js";

/**
 * EASE scored the way personalized would serve it: the user's row of the training matrix times B, active
 * items only, and (by default, as personalized) none the user already interacted with.
 */
export function easeRanker(index: OrgIndex, matrix: SparseRows, model: EaseModel, excludeSeen: boolean): Ranker {
  const n = model.items;
  const scores = new Float64Array(n);
  return {
    name: `EASE (exclude_seen ${excludeSeen})`,
    recommend(user) {
      const u = index.people.find(user);
      if (u < 0 || u >= matrix.rows || matrix.indptr[u] === matrix.indptr[u + 1]) return { items: [], fellBack: true };
      scores.fill(0);
      const from = matrix.indptr[u]!;
      const to = matrix.indptr[u + 1]!;
      for (let a = from; a < to; a++) {
        const row = matrix.indices[a]! * n;
        for (let j = 0; j < n; j++) scores[j]! += model.weights[row + j]!;
      }
      const seen = excludeSeen ? new Set(matrix.indices.subarray(from, to)) : undefined;
      const top = new TopK(DEPTH);
      for (let j = 0; j < n; j++) {
        if (top.wouldTake(scores[j]!, j) && index.catalog.isActive(j) && !seen?.has(j)) top.offer(scores[j]!, j);
      }
      return { items: Array.from(top.sorted().items, (j) => index.catalog.ids.name(j)), fellBack: false };
    },
  };
}

/** Trains EASE on the same matrix ALS learns from; its rankers with and without seen items, and the time taken. */
export function easeRankers(index: OrgIndex, nowS: number, lambda: number): { rankers: Ranker[]; seconds: number } {
  const { matrix } = trainingSet(index, nowS);
  const started = performance.now();
  const model = trainEase(matrix, lambda);
  const seconds = Math.round(performance.now() - started) / 1000;
  return { rankers: [easeRanker(index, matrix, model, true), easeRanker(index, matrix, model, false)], seconds };
}
