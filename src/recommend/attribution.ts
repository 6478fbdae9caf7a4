import type { WriterPool } from "../ingest/writerPool.js";
import { log } from "../wire/log.js";
import { ByteWriter } from "../wire/byteWriter.js";
import type { Mode, RankRequest } from "../wire/rank.js";
import { writeServedTuple, type ServedEnrolment } from "../wire/servedTuple.js";

const FLUSH_MS = 200;
const FLUSH_ROWS = 5_000;
/** Served rows held while the database is unreachable; beyond this the oldest are dropped (and counted). */
const HELD_MAX = 200_000;

/** The COPY tuples of one flush, kept until written. */
interface Chunk {
  payload: Uint8Array;
  rows: number;
}

/**
 * The log of served recommendations, so that later events carrying a recommendation_id can be attributed.
 * Rows are buffered and written in batches by the writer threads; a recommendation is answered without
 * waiting for its row (serving must not pay a commit), so a crash can lose the last fraction of a second.
 * Each row is written as it is served, as a binary COPY tuple (servedTuple.ts): a fifth of a second of rows held
 * as bytes costs the young-generation collector nothing, whereas as objects it was copied at every collection.
 */
export class Attribution {
  private readonly open = new ByteWriter();
  private openRows = 0;
  /** Flushed chunks not written yet (the database was unavailable), oldest first. */
  private held: Chunk[] = [];
  private writing: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  private dropped = 0;

  constructor(
    private readonly writers: Pick<WriterPool, "writeServed">,
    private readonly heldMax = HELD_MAX,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Rows lost so far: refused by the database, or dropped while it was unreachable for long. */
  get droppedRows(): number {
    return this.dropped;
  }

  /** `items`: the page's item ids as a JSON array in UTF-8 (RankResult.items); `enrolment`: its experiment's variant, if any. */
  record(recommendationId: string, req: RankRequest, scenario: string, mode: Mode, items: Uint8Array, enrolment?: ServedEnrolment): void {
    writeServedTuple(this.open, req.org, recommendationId, req.strategy, scenario, mode, req.userId, req.contextItemId, items, Date.now(), enrolment);
    // While a write is in flight the timer's next flush takes these rows: no flush waits per request meanwhile.
    if (++this.openRows >= FLUSH_ROWS && !this.writing) void this.flush();
  }

  /** Writes what is buffered; resolves when that write (and any before it) has finished. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.openRows > 0) {
      this.held.push({ payload: this.open.copy(), rows: this.openRows });
      this.open.reset();
      this.openRows = 0;
    }
    if (this.held.length === 0) return;
    const chunks = this.held;
    this.held = [];
    this.writing = this.write(chunks).finally(() => (this.writing = undefined));
    await this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(chunks: Chunk[]): Promise<void> {
    const rows = chunks.reduce((n, c) => n + c.rows, 0);
    const r = await this.writers.writeServed(joined(chunks));
    if (r.ok) return;
    if (r.unavailable) {
      // Kept for the next flush, ahead of newer rows.
      this.held = chunks.concat(this.held);
      this.dropBeyondMax();
      log.warn("served recommendations not written yet: database unavailable", { rows });
      return;
    }
    this.dropped += rows;
    log.error("served recommendations refused by the database", { rows, dropped: this.dropped, error: r.message });
  }

  private dropBeyondMax(): void {
    let rows = this.held.reduce((n, c) => n + c.rows, 0);
    while (rows > this.heldMax && this.held.length > 1) {
      const oldest = this.held.shift()!;
      rows -= oldest.rows;
      this.dropped += oldest.rows;
    }
  }
}

/** The chunks' bytes in one new buffer (its memory moves to the writer thread; the chunks stay for a retry). */
function joined(chunks: Chunk[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.payload.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c.payload, at);
    at += c.payload.length;
  }
  return out;
}
