import type { RankAsk } from "../../src/wire/shardMessages.js";
import type { Work } from "./fairScheduler.js";
import { Ring } from "./ring.js";

/** Milliseconds since the epoch on the clock every thread of the process shares (RankAsk.deadline's). */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * One organisation's rank asks on its shard, in the order they came: its lane of the shard's FairScheduler. The
 * front thread keeps at most RECOMMEND_ORG_QUEUE_MAX of them unanswered per organisation, which bounds this queue.
 */
export class OrgAsks implements Work {
  private readonly asks = new Ring<RankAsk>();

  /** `expired` hears of each ask dropped unranked because its deadline had passed. */
  constructor(
    private readonly serve: (ask: RankAsk) => void,
    private readonly expired: () => void,
    private readonly now: () => number = epochNow,
  ) {}

  get waiting(): boolean {
    return this.asks.length > 0;
  }

  /** Queues an ask; true when the queue was empty (the lane must be woken). */
  push(ask: RankAsk): boolean {
    this.asks.push(ask);
    return this.asks.length === 1;
  }

  /** Ranks the oldest ask still in time; those before it, already answered 503 by the front thread, are dropped. */
  runOne(): void {
    const now = this.now();
    for (let ask = this.asks.shift(); ask; ask = this.asks.shift()) {
      if (ask.deadline > now) {
        this.serve(ask);
        return;
      }
      this.expired();
    }
  }
}
