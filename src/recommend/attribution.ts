import type { WriterPool } from "../ingest/writerPool.js";
import { log } from "../log.js";
import type { ServedRow } from "../../workers/writer/served.js";
import type { Mode, RankRequest } from "./schema.js";

const FLUSH_MS = 200;
const FLUSH_ROWS = 5_000;
/** Served rows held while the database is unreachable; beyond this the oldest are dropped (and counted). */
const BUFFER_MAX = 200_000;

/**
 * The log of served recommendations, so that later events carrying a recommendation_id can be attributed.
 * Rows are buffered and written in batches by the writer threads; a recommendation is answered without
 * waiting for its row (serving must not pay a commit), so a crash can lose the last fraction of a second.
 */
export class Attribution {
  private buffer: ServedRow[] = [];
  private writing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(private readonly writers: WriterPool) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  record(recommendationId: string, req: RankRequest, mode: Mode, items: string[]): void {
    if (this.buffer.length >= BUFFER_MAX) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push([
      req.org, recommendationId, req.strategy, mode, req.userId ?? null, req.contextItemId ?? null, items, Date.now(),
    ]);
    if (this.buffer.length >= FLUSH_ROWS) void this.flush();
  }

  /** Writes what is buffered; resolves when that write (and any before it) has finished. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.writing = this.write(rows).finally(() => (this.writing = undefined));
    await this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(rows: ServedRow[]): Promise<void> {
    const r = await this.writers.writeServed(rows);
    if (r.ok) return;
    if (r.unavailable) {
      // Keep them for the next flush, ahead of newer rows.
      this.buffer = rows.concat(this.buffer).slice(-BUFFER_MAX);
      log.warn("served recommendations not written yet: database unavailable", { rows: rows.length });
      return;
    }
    this.dropped += rows.length;
    log.error("served recommendations refused by the database", { rows: rows.length, dropped: this.dropped, error: r.message });
  }
}
