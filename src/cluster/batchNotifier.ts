import type pg from "pg";
import { BATCH_CHANNEL } from "../wire/batchLog.js";
import { log } from "../wire/log.js";

/**
 * Tells the other processes that this one committed batches (logged by its writers, src/wire/batchLog.ts).
 * The notice goes after the commit, in a statement of its own, not inside the writer's transaction: a
 * notifying transaction holds a lock on PostgreSQL's notification queue, one for the whole server, from before
 * its commit until after it (async.c, "Serialize writers"), so notifying writers would take their commits'
 * WAL flushes one at a time instead of together. A notice alone writes no WAL and commits at once. One is in flight at a
 * time; commits meanwhile make one more after it, so a busy process sends one per round trip, not one per batch.
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
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pool.query("SELECT pg_notify($1, $2)", [BATCH_CHANNEL, this.origin]);
      } catch (err) {
        log.warn("the other processes could not be told of committed batches; they read them at the next notice", {
          error: (err as Error).message,
        });
      }
    } while (this.again);
    this.sending = undefined;
  }
}
