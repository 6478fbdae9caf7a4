/** Every figure is taken over the top K of a ranking. */
export const K = 10;

/**
 * Top-k accuracy of one ranking against a user's held-out items, with the definitions of Microsoft
 * Recommenders' tables (binary relevance): precision divides the hits by k, recall by the number of held-out
 * items, nDCG compares with the best order of min(k, held out) hits, MAP@k averages the precision at each hit
 * over min(k, held out).
 */
export function userScores(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k = K,
): { precision: number; recall: number; ndcg: number; map: number } {
  let hits = 0;
  let dcg = 0;
  let precisions = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) {
    if (!relevant.has(ranked[i]!)) continue;
    hits++;
    dcg += 1 / Math.log2(i + 2);
    precisions += hits / (i + 1);
  }
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  const best = Math.min(k, relevant.size);
  return {
    precision: hits / k,
    recall: relevant.size === 0 ? 0 : hits / relevant.size,
    ndcg: ideal === 0 ? 0 : dcg / ideal,
    map: best === 0 ? 0 : precisions / best,
  };
}

export interface Scores {
  users: number;
  precision10: number;
  recall10: number;
  ndcg10: number;
  map10: number;
  /** Share of the catalog that appears in at least one user's top 10. */
  coverage: number;
  /** Share of users answered by the popular fallback instead of the strategy itself. */
  fallback: number;
}

/** Averages the per-user figures of one ranker as users are added. */
export class Scoreboard {
  private n = 0;
  private readonly sums = { precision: 0, recall: 0, ndcg: 0, map: 0 };
  private fallbacks = 0;
  private readonly shown = new Set<string>();

  add(ranked: readonly string[], relevant: ReadonlySet<string>, fellBack: boolean): void {
    this.n++;
    const s = userScores(ranked, relevant);
    this.sums.precision += s.precision;
    this.sums.recall += s.recall;
    this.sums.ndcg += s.ndcg;
    this.sums.map += s.map;
    if (fellBack) this.fallbacks++;
    for (const item of ranked.slice(0, K)) this.shown.add(item);
  }

  scores(catalogSize: number): Scores {
    const avg = (x: number) => (this.n === 0 ? 0 : x / this.n);
    return {
      users: this.n,
      precision10: avg(this.sums.precision),
      recall10: avg(this.sums.recall),
      ndcg10: avg(this.sums.ndcg),
      map10: avg(this.sums.map),
      coverage: catalogSize === 0 ? 0 : this.shown.size / catalogSize,
      fallback: avg(this.fallbacks),
    };
  }
}
