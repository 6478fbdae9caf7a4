import { Counter, Histogram, type LabelValues, type MetricType, type Registry } from "prom-client";
import { DURATION_BUCKETS, type RouteStatsTable } from "./routeStats.js";

type RouteLabel = "route" | "method";
type Sample = { value: number; labels: LabelValues<RouteLabel>; metricName: string };

const REQUESTS_HELP = 'HTTP answers by route pattern (/api aliases folded into /v1; paths matching no route as "unmatched"), method and status.';
const DURATION_NAME = "recsvc_http_request_duration_seconds";
const DURATION_HELP = "Time from reading a request's headers to writing its answer, by route pattern and method.";

/** recsvc_http_requests_total, filled from the route cells at each scrape (prom-client's own inc per request is the cost avoided). */
export function httpRequestsCounter(table: RouteStatsTable, registry: Registry): Counter<RouteLabel | "status"> {
  return new Counter({
    name: "recsvc_http_requests_total",
    help: REQUESTS_HELP,
    labelNames: ["route", "method", "status"],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of table.cells()) {
        for (const [status, n] of s.byStatus) this.inc({ route: s.route, method: s.method, status: String(status) }, n);
      }
    },
  });
}

/**
 * recsvc_http_request_duration_seconds: a prom-client Histogram whose samples are read from the route cells at
 * each scrape. prom-client has no way to add bucket counts in bulk, so this one renders its own samples, in the
 * shape prom-client's histograms give the registry (`_bucket` with `le`, `_sum`, `_count`).
 */
export class RouteDurationHistogram extends Histogram<RouteLabel> {
  constructor(
    private readonly table: RouteStatsTable,
    registry: Registry,
  ) {
    super({ name: DURATION_NAME, help: DURATION_HELP, labelNames: ["route", "method"], buckets: [...DURATION_BUCKETS], registers: [registry] });
  }

  override async get(): ReturnType<Histogram<RouteLabel>["get"]> {
    // The registry reads `type` as the text it writes after # TYPE; prom-client's typings call it an enum.
    return {
      name: DURATION_NAME,
      help: DURATION_HELP,
      type: "histogram" as unknown as MetricType,
      aggregator: "sum",
      values: this.samples(),
      collect: () => undefined,
    };
  }

  /** What prom-client's registry renders when a metric has it (its histograms do): the same samples. */
  getForPromString(): ReturnType<Histogram<RouteLabel>["get"]> {
    return this.get();
  }

  private samples(): Sample[] {
    const out: Sample[] = [];
    for (const s of this.table.cells()) {
      if (s.count === 0) continue;
      let cumulative = 0;
      for (let b = 0; b < DURATION_BUCKETS.length; b++) {
        cumulative += s.buckets[b];
        out.push({
          value: cumulative,
          labels: { route: s.route, method: s.method, le: DURATION_BUCKETS[b] } as LabelValues<RouteLabel>,
          metricName: `${DURATION_NAME}_bucket`,
        });
      }
      out.push({
        value: s.count,
        labels: { route: s.route, method: s.method, le: "+Inf" } as LabelValues<RouteLabel>,
        metricName: `${DURATION_NAME}_bucket`,
      });
      out.push({ value: s.sum, labels: { route: s.route, method: s.method }, metricName: `${DURATION_NAME}_sum` });
      out.push({ value: s.count, labels: { route: s.route, method: s.method }, metricName: `${DURATION_NAME}_count` });
    }
    return out;
  }
}
