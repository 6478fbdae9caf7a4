import type { AppError } from "./errors.js";

/** How much of one kind of work runs at once, and how much may wait its turn. */
export interface GateLimits {
  concurrency: number;
  /** Calls allowed to wait; beyond, `busy()` is thrown at once. */
  queueMax: number;
}

/**
 * Runs work a few at a time, with a bounded queue behind it: more than that is refused with `busy()` (a 503),
 * so that a burst neither takes the resource every other request needs nor piles up in memory.
 */
export class WorkGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limits: GateLimits,
    private readonly busy: () => AppError,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.queueMax) throw this.busy();
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
