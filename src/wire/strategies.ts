/** CONTRACT 5: the ten strategies, and what each needs. The one list: the request schema, the recommender threads and the benchmarks read it. */
export const STRATEGIES = [
  "personalized",
  "because-you-viewed",
  "recently-viewed",
  "buy-again",
  "similar",
  "frequently-bought-together",
  "also-viewed",
  "popular",
  "trending",
  "new-arrivals",
] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const USER_STRATEGIES: ReadonlySet<Strategy> = new Set(["personalized", "because-you-viewed", "recently-viewed", "buy-again"]);
export const ITEM_STRATEGIES: ReadonlySet<Strategy> = new Set(["similar", "frequently-bought-together", "also-viewed"]);
export const GLOBAL_STRATEGIES: ReadonlySet<Strategy> = new Set(["popular", "trending", "new-arrivals"]);
