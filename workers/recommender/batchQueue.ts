import { log } from "../../src/wire/log.js";

/** A batch's application is worked on for this long before the thread turns to the messages waiting. */
const SLICE_MS = 2;

interface Job {
  steps: Iterator<void>;
  done: () => void;
}

/**
 * Committed batches, applied in the order they came, a slice of steps at a time: a rank request that arrives
 * while a large batch (an upload's 10,000 items) is applied waits for a slice, not for the whole batch.
 */
export class BatchQueue {
  private readonly jobs: Job[] = [];
  private scheduled = false;

  /** `done` is called once the batch is applied (or, should a step throw, abandoned and logged). */
  add(steps: Iterator<void>, done: () => void): void {
    this.jobs.push({ steps, done });
    if (!this.scheduled) this.run();
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    while (this.jobs.length > 0) {
      const job = this.jobs[0]!;
      if (this.step(job)) {
        this.jobs.shift();
        job.done();
      }
      if (this.jobs.length > 0 && performance.now() >= until) {
        this.scheduled = true;
        setImmediate(this.run);
        return;
      }
    }
  };

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
