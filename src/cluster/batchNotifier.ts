import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { BATCH_CHANNEL } from "../wire/batchLog.js";
import { log } from "../wire/log.js";

/** At most one notice per this many ms while commits keep coming; the first after a quiet spell goes at once. */
const NOTICE_GAP_MS = 20;

/**
 * Tells the other processes that this one committed batches (logged by its writers, src/wire/batchLog.ts).
 * The notice goes after the commit, in a statement of its own, not inside the writer's transaction: a
 * notifying transaction holds a lock on PostgreSQL's notification queue, one for the whole server, from before
 * its commit until after it (async.c, "Serialize writers"), so notifying writers would take their commits'
 * WAL flushes one at a time instead of together. A notice alone writes no WAL and commits at once. One is in flight at a
 * time; commits meanwhile make one more after it, so a busy process sends one per round trip, not one per batch.
 * Under load notices are spaced NOTICE_GAP_MS apart: one per round trip was hundreds a second under single-event
 * ingestion, each a transaction of its own and a read in every other process (N processes: N·(N−1) reads per
 * round), while spaced the others hear of a batch at most that much later, well inside the 1 s freshness goal.
 * A notice lost (the database went away) delays the batches until the next notice of any process, or until
 * the others listen again after losing their connection, when they read everything.
 */
export class BatchNotifier {
  private sending: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly origin: string,
  ) {}

  committed(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = this.send();
  }

  /** Resolves once the notices due so far are sent (or given up). */
  async catchUp(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      const started = performance.now();
      try {
        await this.pool.query("SELECT pg_notify($1, $2)", [BATCH_CHANNEL, this.origin]);
      } catch (err) {
        log.warn("the other processes could not be told of committed batches; they read them at the next notice", {
          error: (err as Error).message,
        });
      }
      // Held for the gap even when no commit came during the round trip: commits a millisecond apart would
      // otherwise each find the notifier idle and send at once.
      await sleep(Math.max(0, NOTICE_GAP_MS - (performance.now() - started)));
    } while (this.again);
    this.sending = undefined;
  }
}
