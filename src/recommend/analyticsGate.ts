import { appError } from "../errors.js";
import { WorkGate } from "../workGate.js";

/**
 * How many analytics over time a process computes at once, and how many wait their turn: each holds two of the
 * pool's connections while it runs, and a first call over a long period counts its days for seconds, so that
 * calls from several dashboards never take the connections every other request needs. More are refused (503).
 */
export const ANALYTICS_CONCURRENCY = 2;
export const ANALYTICS_QUEUE_MAX = 16;

export class AnalyticsGate extends WorkGate {
  constructor(concurrency = ANALYTICS_CONCURRENCY, queueMax = ANALYTICS_QUEUE_MAX) {
    super({ concurrency, queueMax }, () => appError("unavailable", "analyticsBusy", {}, { "Retry-After": "1" }));
  }
}
