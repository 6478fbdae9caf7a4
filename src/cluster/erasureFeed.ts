import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import { ERASURE_CHANNEL } from "../erasure/erasures.js";
import type { RecommenderPool } from "../recommend/recommenderPool.js";
import { log } from "../wire/log.js";

/** Notices held while the recommender loads, at most (each names one erasure; a flood past this is caught up by the load). */
const HELD_MAX = 10_000;

/**
 * CLUSTER=1: erasures requested through the other processes, handed to this process's recommender threads
 * (which drop the users' state). Listening starts before the recommender loads, so an erasure committed after
 * the load's snapshot is not missed; its notice waits until the threads exist. After a lost connection the last
 * hour's erasures are handed over again (their ids stay that long: src/erasure/erasureRunner.ts).
 */
export class ErasureFeed {
  private readonly listener: ChannelListener;
  private recommender: RecommenderPool | undefined;
  private held: string[] = [];
  private listened = false;

  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
    private readonly origin: string,
  ) {
    this.listener = new ChannelListener(
      connect,
      ERASURE_CHANNEL,
      (payload) => this.notice(payload),
      () => this.catchUp(),
    );
  }

  listen(): Promise<void> {
    return this.listener.start();
  }

  /** The recommender is loaded: held notices are handed over, later ones as they come. */
  attach(recommender: RecommenderPool): Promise<void> {
    this.recommender = recommender;
    const held = this.held;
    this.held = [];
    return this.handOver(`id = ANY($1)`, [held]);
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private notice(payload: string): void {
    const [id, origin] = payload.split(" ");
    if (origin === this.origin || id === undefined) return;
    if (this.recommender) {
      void this.handOver("id = $1", [id]);
    } else if (this.held.length < HELD_MAX) {
      this.held.push(id);
    } else {
      log.warn("an erasure notice arrived while too many waited for the recommender's load; the load reads it", { erasure: id });
    }
  }

  private async catchUp(): Promise<void> {
    if (this.listened && this.recommender) await this.handOver("requested_at > now() - interval '1 hour'", []);
    this.listened = true;
  }

  private async handOver(where: string, values: unknown[]): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ org: number; user_ids: string[] }>(`SELECT org, user_ids FROM erasures WHERE ${where}`, values);
      for (const r of rows) if (r.user_ids.length > 0) this.recommender!.erase(r.org, r.user_ids);
    } catch (err) {
      log.error("erased users could not be handed to the recommender", { error: (err as Error).message });
    }
  }
}
