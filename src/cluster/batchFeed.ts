import type pg from "pg";
import { ChannelListener } from "../db/listener.js";
import { log } from "../wire/log.js";
import { BATCH_CHANNEL } from "./batchAnnouncer.js";

const PAGE = 200;
/** How long an announced batch stays in the log for a process that lost its connection to catch up from. */
const KEEP_MINUTES = 5;
const PRUNE_EVERY_MS = 60_000;

interface LoggedBatch {
  id: string;
  origin: string;
  packed: Buffer;
  not_stored: number[] | null;
}

/**
 * The batches the other processes on this database committed, handed to `apply` in each one's commit order.
 * Ids follow commit order within one process (it announces one batch at a time) but not across processes, so
 * each process's batches are followed on their own: a notice names its process, and that process's batches
 * after the last one seen are read. After a lost connection every process's missed batches are read.
 */
export class BatchFeed {
  /** The log's last id when this process started: what came before is in the tables it loaded. */
  private startId = 0;
  private readonly lastByOrigin = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();
  private readonly listener: ChannelListener;
  private pruner: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    connect: () => pg.Client,
    private readonly origin: string,
    private readonly apply: (packed: Uint8Array, notStored: readonly number[] | undefined) => void,
  ) {
    this.listener = new ChannelListener(
      connect,
      BATCH_CHANNEL,
      (origin) => {
        if (origin !== this.origin) void this.serially(() => this.readOrigin(origin));
      },
      () => this.serially(() => this.catchUp()),
    );
  }

  /** Before the recommender loads the tables: batches logged up to here are in what it reads. */
  async markStart(): Promise<void> {
    const { rows } = await this.pool.query<{ id: string }>("SELECT coalesce(max(id), 0)::text AS id FROM batch_log");
    this.startId = Number(rows[0].id);
  }

  /** Once the recommender can take batches. */
  async listen(): Promise<void> {
    await this.listener.start();
    this.pruner = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pruner);
    await this.listener.stop();
    await this.queue;
  }

  private serially(read: () => Promise<void>): Promise<void> {
    this.queue = this.queue
      .then(read)
      .catch((err: Error) => log.warn("announced batches could not be read; reading again at the next notice", { error: err.message }));
    return this.queue;
  }

  private last(origin: string): number {
    return this.lastByOrigin.get(origin) ?? this.startId;
  }

  private async readOrigin(origin: string): Promise<void> {
    for (;;) {
      const { rows } = await this.pool.query<LoggedBatch>(
        "SELECT id::text, origin::text, packed, not_stored FROM batch_log WHERE origin = $1 AND id > $2 ORDER BY id LIMIT $3",
        [origin, this.last(origin), PAGE],
      );
      this.take(rows);
      if (rows.length < PAGE) return;
    }
  }

  /** Every process's batches after the last seen of each (after a connection was lost, notices with it). */
  private async catchUp(): Promise<void> {
    let from = Math.min(this.startId, ...this.lastByOrigin.values());
    for (;;) {
      const { rows } = await this.pool.query<LoggedBatch>(
        "SELECT id::text, origin::text, packed, not_stored FROM batch_log WHERE id > $1 ORDER BY id LIMIT $2",
        [from, PAGE],
      );
      this.take(rows.filter((b) => Number(b.id) > this.last(b.origin)));
      if (rows.length < PAGE) return;
      from = Number(rows[rows.length - 1].id);
    }
  }

  private take(rows: LoggedBatch[]): void {
    for (const b of rows) {
      if (b.origin !== this.origin) this.apply(b.packed, b.not_stored ?? undefined);
      this.lastByOrigin.set(b.origin, Number(b.id));
    }
  }

  private prune(): void {
    this.pool
      .query(`DELETE FROM batch_log WHERE at < now() - interval '${KEEP_MINUTES} minutes'`)
      .catch((err: Error) => log.warn("the batch log could not be pruned", { error: err.message }));
  }
}
