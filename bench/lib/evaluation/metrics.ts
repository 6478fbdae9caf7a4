/**
 * Top-k accuracy over held-out items. Recall@k divides by min(k, |relevant|) so that a user with more held-out
 * items than k can still reach 1 (otherwise the --holdout share would cap the figure, not the recommender).
 */
export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let hits = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if (relevant.has(ranked[i]!)) hits++;
  return hits / Math.min(k, relevant.size);
}

/** Binary-relevance NDCG@k: gains 1/log2(rank + 1), against the best possible order of the relevant items. */
export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if (relevant.has(ranked[i]!)) dcg += 1 / Math.log2(i + 2);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export interface Scores {
  users: number;
  recall10: number;
  recall20: number;
  ndcg10: number;
  /** Share of the catalog that appears in at least one user's top 20. */
  coverage: number;
  /** Share of users answered by the popular fallback instead of the strategy itself. */
  fallback: number;
}

/** Averages the per-user figures of one ranker as users are added. */
export class Scoreboard {
  private n = 0;
  private r10 = 0;
  private r20 = 0;
  private n10 = 0;
  private fallbacks = 0;
  private readonly shown = new Set<string>();

  add(ranked: readonly string[], relevant: ReadonlySet<string>, fellBack: boolean): void {
    this.n++;
    this.r10 += recallAt(ranked, relevant, 10);
    this.r20 += recallAt(ranked, relevant, 20);
    this.n10 += ndcgAt(ranked, relevant, 10);
    if (fellBack) this.fallbacks++;
    for (const item of ranked.slice(0, 20)) this.shown.add(item);
  }

  scores(catalogSize: number): Scores {
    const avg = (x: number) => (this.n === 0 ? 0 : x / this.n);
    return {
      users: this.n,
      recall10: avg(this.r10),
      recall20: avg(this.r20),
      ndcg10: avg(this.n10),
      coverage: catalogSize === 0 ? 0 : this.shown.size / catalogSize,
      fallback: avg(this.fallbacks),
    };
  }
}
