/** Upper bounds, in seconds, of the request duration histogram's buckets (answers are usually sub-millisecond). */
export const DURATION_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request that matched no route: raw paths never become labels (bounded cardinality). */
export const UNMATCHED = "unmatched";

/** Methods with a label of their own; any other token a client sends shares `OTHER`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * One route and method's answers as plain numbers. Counting through prom-client's labelled children builds and
 * hashes a label key on every call (README, "Metrics", says what that costs); here a request costs a few additions,
 * and the label work happens once per scrape (see httpMetrics.ts).
 */
export class RouteStats {
  /** Answers by HTTP status. */
  readonly byStatus = new Map<number, number>();
  /** Answers per duration bucket, not cumulative; the last slot holds those above the largest bound. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  record(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let b = 0;
    while (b < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[b]) b++;
    this.buckets[b]++;
    this.sum += seconds;
    this.count++;
  }
}

/** Every route's cells, by route pattern (or UNMATCHED) and method. */
export class RouteStatsTable {
  private readonly routes = new Map<string, Map<string, RouteStats>>();

  /** `route` must be a registered pattern or UNMATCHED: the table holds one entry per value it is given. */
  cell(route: string, method: string): RouteStats {
    let methods = this.routes.get(route);
    if (methods === undefined) {
      methods = new Map();
      this.routes.set(route, methods);
    }
    return methods.get(method) ?? this.add(methods, route, method);
  }

  *cells(): IterableIterator<RouteStats> {
    for (const methods of this.routes.values()) yield* methods.values();
  }

  /** A method outside METHODS is never a key of its own, so random method tokens cannot grow the table. */
  private add(methods: Map<string, RouteStats>, route: string, method: string): RouteStats {
    const label = METHODS.has(method) ? method : "OTHER";
    let stats = methods.get(label);
    if (stats === undefined) {
      stats = new RouteStats(route, label);
      methods.set(label, stats);
    }
    return stats;
  }
}

/** The service's one table: the HTTP front records into it, the scrape reads it. */
export const routeStats = new RouteStatsTable();
