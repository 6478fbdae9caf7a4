import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import { MODEL_CHANNEL } from "../wire/shardMessages.js";
import { log } from "../wire/log.js";

/**
 * CLUSTER=1, the front thread's side of shared training (one process trains each organisation): the models other
 * processes store, handed to `stored` with their version for the owning recommender thread to load, and this
 * process's training leases given up when it stops. After a lost connection, every organisation's latest version
 * is handed over again (a thread skips those it has).
 */
export class ModelFeed {
  private readonly listener: ChannelListener;

  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
    private readonly holder: string,
    private readonly stored: (org: number, version: number) => void,
  ) {
    this.listener = new ChannelListener(
      connect,
      MODEL_CHANNEL,
      (payload) => this.notice(payload),
      () => this.catchUp(),
    );
  }

  listen(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  /**
   * Once the recommender threads have stopped (none can renew a lease or store a model any more): another process
   * may train this one's organisations at once, rather than a lease's length later. A failure leaves the leases to
   * expire, as a crash does.
   */
  async releaseLeases(): Promise<void> {
    try {
      const { rowCount } = await this.pool.query("DELETE FROM training_lease WHERE holder = $1", [this.holder]);
      log.info("training leases given up", { leases: rowCount ?? 0 });
    } catch (err) {
      log.warn("training leases could not be given up; they expire by themselves", { error: (err as Error).message });
    }
  }

  private notice(payload: string): void {
    const [org, version, holder] = payload.split(" ");
    if (holder === this.holder) return;
    if (!/^\d+$/.test(org ?? "") || !/^\d+$/.test(version ?? "")) {
      log.warn("a stored model's notice could not be read", { payload: payload.slice(0, 100) });
      return;
    }
    this.stored(Number(org), Number(version));
  }

  private async catchUp(): Promise<void> {
    const { rows } = await this.pool.query<{ org: number; version: string }>("SELECT org, version::text FROM trained_model WHERE holder <> $1", [
      this.holder,
    ]);
    for (const r of rows) this.stored(r.org, Number(r.version));
  }
}
