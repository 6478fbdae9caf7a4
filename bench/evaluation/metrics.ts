/** The depth of every figure unless the data says otherwise (published MovieLens tables use 10, LightGCN's 20). */
export const DEFAULT_DEPTH = 10;

/**
 * Top-k accuracy of one ranking against a user's held-out items, binary relevance, with the definitions of
 * Microsoft Recommenders' and LightGCN's tables (the same): precision divides the hits by k, recall by the
 * number of held-out items, nDCG compares with the best order of min(k, held out) hits, MAP@k averages the
 * precision at each hit over min(k, held out).
 */
export function userScores(
  ranked: readonly string[],
  relevant: ReadonlySet<string>,
  k = DEFAULT_DEPTH,
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

/** One ranker's figures, each at the evaluation's depth k. */
export interface Scores {
  users: number;
  k: number;
  precision: number;
  recall: number;
  ndcg: number;
  map: number;
  /** Share of the catalog that appears in at least one user's top k. */
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

  constructor(private readonly k = DEFAULT_DEPTH) {}

  add(ranked: readonly string[], relevant: ReadonlySet<string>, fellBack: boolean): void {
    this.n++;
    const s = userScores(ranked, relevant, this.k);
    this.sums.precision += s.precision;
    this.sums.recall += s.recall;
    this.sums.ndcg += s.ndcg;
    this.sums.map += s.map;
    if (fellBack) this.fallbacks++;
    for (const item of ranked.slice(0, this.k)) this.shown.add(item);
  }

  scores(catalogSize: number): Scores {
    const avg = (x: number) => (this.n === 0 ? 0 : x / this.n);
    return {
      users: this.n,
      k: this.k,
      precision: avg(this.sums.precision),
      recall: avg(this.sums.recall),
      ndcg: avg(this.sums.ndcg),
      map: avg(this.sums.map),
      coverage: catalogSize === 0 ? 0 : this.shown.size / catalogSize,
      fallback: avg(this.fallbacks),
    };
  }
}
