import { appError } from "../errors.js";

/**
 * How many analytics over time a process computes at once, and how many wait their turn: each holds two of the
 * pool's connections while it runs, and a first call over a long period counts its days for seconds, so that
 * calls from several dashboards never take the connections every other request needs. More are refused (503).
 */
export const ANALYTICS_CONCURRENCY = 2;
export const ANALYTICS_QUEUE_MAX = 16;

export class AnalyticsGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency = ANALYTICS_CONCURRENCY,
    private readonly queueMax = ANALYTICS_QUEUE_MAX,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queueMax) throw appError("unavailable", "analyticsBusy", {}, { "Retry-After": "1" });
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The turn passes straight to the next waiter, so `running` counts it without a gap another caller could take.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
