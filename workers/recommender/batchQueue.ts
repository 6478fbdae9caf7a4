import { log } from "../../src/wire/log.js";
import type { Work } from "./fairScheduler.js";

interface Job {
  steps: Iterator<void>;
  done: () => void;
}

/**
 * Committed batches, applied in the order they came, one step (at most RECORDS_PER_STEP records: shard.ts) at a
 * time. It is one lane of the shard's FairScheduler: while organisations' asks wait, an upload's 10,000 items are
 * applied a turn at a time between their turns, taking a share of the thread, not all of it.
 */
export class BatchQueue implements Work {
  private readonly jobs: Job[] = [];

  /** `wake` is told when the queue has work again (the scheduler then gives it turns). */
  constructor(private readonly wake: (queue: BatchQueue) => void) {}

  get waiting(): boolean {
    return this.jobs.length > 0;
  }

  /** `done` is called once the batch is applied (or, should a step throw, abandoned and logged). */
  add(steps: Iterator<void>, done: () => void): void {
    this.jobs.push({ steps, done });
    if (this.jobs.length === 1) this.wake(this);
  }

  runOne(): void {
    const job = this.jobs[0];
    if (job && this.step(job)) {
      this.jobs.shift();
      job.done();
    }
  }

  /** Runs one step; true when the job is over. */
  private step(job: Job): boolean {
    try {
      return job.steps.next().done === true;
    } catch (err) {
      log.error("recommender thread could not apply a batch; the rest of it is dropped", { error: (err as Error).stack });
      return true;
    }
  }
}
