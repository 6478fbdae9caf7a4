import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Limiter } from "../auth/rateLimit.js";
import type { RecommenderPool } from "../recommend/recommenderPool.js";
import { packedBatchOrgs } from "../wire/batchPack.js";
import { BatchFeed } from "./batchFeed.js";
import { BatchNotifier } from "./batchNotifier.js";
import { ErasureFeed } from "./erasureFeed.js";
import { LeasedRateLimiter } from "./leasedRateLimiter.js";
import { ModelFeed } from "./modelFeed.js";
import { QuotaStore } from "./quotaStore.js";

/**
 * CLUSTER=1: what this process shares with the other service processes on its database (docs/scaling.md) —
 * the batches each logs and the others apply, the models one trains and the others load, the users one erases
 * and the others forget, and the rate-limit quota they lease. Started around the recommender's load: the feed's horizon is taken before it, and the
 * others' batches and models flow in once it is done.
 */
export class Cluster {
  /** This process, as its log rows, notices and training leases name it. */
  readonly origin = randomUUID();
  private recommender: RecommenderPool | undefined;
  private readonly feed: BatchFeed;
  private readonly models: ModelFeed;
  private readonly erasures: ErasureFeed;
  private readonly notifier: BatchNotifier;
  private readonly quota: QuotaStore;
  private readonly limiters: LeasedRateLimiter[] = [];

  constructor(pool: pg.Pool, connect: () => pg.Client) {
    this.feed = new BatchFeed(pool, connect, this.origin, (packed, notStored, xid) =>
      // The row's bytes may share a pooled buffer with others: the shards get a copy of their own to move.
      this.loaded().publish(packedBatchOrgs(packed), new Uint8Array(packed), notStored, xid),
    );
    this.models = new ModelFeed(pool, connect, this.origin, (org, version) => this.loaded().modelStored(org, version));
    this.erasures = new ErasureFeed(pool, connect, this.origin);
    this.notifier = new BatchNotifier(pool, this.origin);
    this.quota = new QuotaStore(pool);
  }

  /** Before the recommender loads the tables: what is logged from here on is read from the log. */
  async beforeLoad(): Promise<void> {
    await this.feed.markStart();
    await this.erasures.listen();
  }

  /**
   * Once it has: the others' batches and models flow in, and the batches they logged during the load are applied
   * before this returns, so that the process listens (and /readyz says ready) only once they count.
   */
  async afterLoad(recommender: RecommenderPool): Promise<void> {
    this.recommender = recommender;
    await this.feed.listen();
    await this.models.listen();
    await this.erasures.attach(recommender);
    await recommender.catchUp();
  }

  /** A batch this process's writer logged has committed: the others hear of it. */
  committed(): void {
    this.notifier.committed();
  }

  limiter(name: string): Limiter {
    const limiter = new LeasedRateLimiter(this.quota, name);
    this.limiters.push(limiter);
    return limiter;
  }

  /** At shutdown, once ingestion has stopped and before the recommender closes. */
  /** Every batch another process committed before this call has been published to the recommender once it resolves. */
  catchUp(): Promise<void> {
    return this.feed.catchUp();
  }

  async stop(): Promise<void> {
    await this.notifier.catchUp();
    await this.feed.stop();
    // The quota this process holds unspent goes back to the processes that stay.
    await Promise.all(this.limiters.map((l) => l.stop()));
    await this.quota.stop();
    await this.models.stop();
    await this.erasures.stop();
  }

  /** Once the recommender threads have stopped (none can renew a lease or store a model any more). */
  releaseLeases(): Promise<void> {
    return this.models.releaseLeases();
  }

  private loaded(): RecommenderPool {
    if (!this.recommender) throw new Error("the cluster's feeds delivered before the recommender was loaded");
    return this.recommender;
  }
}
