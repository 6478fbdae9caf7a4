import { log } from "../../src/wire/log.js";
import { Ring } from "./ring.js";

/** Work one lane holds: an organisation's rank asks, or the shard's committed batches. */
export interface Work {
  /** Whether it has a unit of work waiting. */
  readonly waiting: boolean;
  /** Does its next unit (one ask, one step of a batch); it handles its own failures. */
  runOne(): void;
}

export interface FairSchedulerOptions {
  /** Thread time a lane is given per round, in ms. */
  quantumMs: number;
  /** Units a lane may run in one turn, however cheap: bounds by count what another lane waits. */
  turnMax: number;
  /** Work done at a stretch before the thread reads the messages that came meanwhile. */
  sliceMs: number;
  /** Called at the end of each slice (the thread sends the answers it holds). */
  sliceEnded?: () => void;
  clock?: () => number;
  /** Runs the next slice after the event loop has taken the messages waiting (setImmediate runs after the poll). */
  defer?: (run: () => void) => void;
}

interface Lane {
  work: Work;
  /** Time this lane may still use (ms): grows by a quantum each round, shrinks by what each unit measured. */
  deficit: number;
  active: boolean;
  /** When it last ran out of work: time away repays a debt. */
  idleSince: number;
}

/**
 * Deficit round robin over a shard's lanes, charged by measured time: each lane with work gets a turn in
 * round-robin order and runs units until it has used its quantum or run `turnMax` of them. A unit that runs
 * longer than the lane's credit leaves it in debt, and a lane in debt is passed over (gaining a quantum a round)
 * until it has repaid it, so a lane of expensive asks gets the same share of the thread as one of cheap asks,
 * not the same number of asks. What one lane waits for another is bounded: at most one turn of each other lane
 * with work (`quantumMs` plus one unit, or `turnMax` units), whatever the others have queued.
 */
export class FairScheduler {
  private readonly lanes = new Map<Work, Lane>();
  /** Lanes with work, in the order of their next turn. */
  private readonly active = new Ring<Lane>();
  private scheduled = false;
  private readonly clock: () => number;
  private readonly defer: (run: () => void) => void;

  constructor(private readonly opts: FairSchedulerOptions) {
    this.clock = opts.clock ?? (() => performance.now());
    this.defer = opts.defer ?? ((run) => setImmediate(run));
  }

  /** Lanes with work, and those still repaying a debt: at most one per organisation of the shard, plus one. */
  get size(): number {
    return this.lanes.size;
  }

  /** `work` has something waiting: it joins the round (at its end) unless it is in it already. */
  wake(work: Work): void {
    let lane = this.lanes.get(work);
    if (!lane) this.lanes.set(work, (lane = { work, deficit: 0, active: false, idleSince: 0 }));
    if (lane.active) return;
    lane.active = true;
    if (lane.deficit < 0) lane.deficit = Math.min(0, lane.deficit + (this.clock() - lane.idleSince));
    this.active.push(lane);
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(this.run);
    }
  }

  private readonly run = (): void => {
    const until = this.clock() + this.opts.sliceMs;
    for (let lane = this.active.shift(); lane; lane = this.active.shift()) {
      this.turn(lane);
      if (this.clock() >= until) break;
    }
    this.opts.sliceEnded?.();
    if (this.active.length > 0) this.defer(this.run);
    else this.scheduled = false;
  };

  private turn(lane: Lane): void {
    const { work } = lane;
    lane.deficit += this.opts.quantumMs;
    for (let n = 0; n < this.opts.turnMax && lane.deficit > 0 && work.waiting; n++) {
      const started = this.clock();
      try {
        work.runOne();
      } catch (err) {
        // A lane's own failure must not stop the thread's scheduling for every other organisation.
        log.error("recommender thread: a unit of work failed", { error: (err as Error).stack });
      }
      lane.deficit -= this.clock() - started;
    }
    // Credit is not saved up (a lane of cheap units would hoard it for a later expensive one); debt is kept.
    if (lane.deficit > 0) lane.deficit = 0;
    if (work.waiting) {
      this.active.push(lane);
      return;
    }
    lane.active = false;
    lane.idleSince = this.clock();
    if (lane.deficit === 0) this.lanes.delete(work);
  }
}
