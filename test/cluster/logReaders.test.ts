import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { BatchFeed } from "../../src/cluster/batchFeed.js";
import { pruneBatchLog } from "../../src/cluster/pruneBatchLog.js";
import { metrics } from "../../src/metrics/registry.js";
import { packBatch, unpackBatch } from "../../src/wire/batchPack.js";
import type { EventRow } from "../../src/wire/batchRows.js";
import { log } from "../../src/wire/log.js";
import { eventually } from "../helpers/recommend.js";
import { testPool, startServer, type TestServer } from "../helpers/server.js";

/**
 * The prune of batch_log and the processes that have not read it yet (CLUSTER=1), on a real PostgreSQL: each
 * feed is a process's, driven here; the server only provides the migrated database. Time passes by age: a batch
 * logged "10 minutes ago" is a row whose `at` says so, as the prune reads it.
 */
let server: TestServer;
let pool: pg.Pool;
const feeds: BatchFeed[] = [];
/** The other process, whose writer logs the batches. */
const WRITER = randomUUID();
/** Short, so that the tests wait for a refresh of the row in milliseconds (the service's is 30 s). */
const REFRESH_MS = 50;

beforeAll(async () => {
  server = await startServer();
  pool = testPool(server.databaseUrl, { max: 4 });
}, 120_000);
beforeEach(async () => {
  await pool.query("TRUNCATE batch_log, batch_log_readers");
});
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of feeds.splice(0)) await f.stop();
});
afterAll(async () => {
  await pool?.end();
  await server?.cleanup();
});

interface Process {
  feed: BatchFeed;
  origin: string;
  /** The users of the batches applied, in order, each as often as it was applied. */
  applied: string[];
}

function readerProcess(): Process {
  const origin = randomUUID();
  const applied: string[] = [];
  const feed = new BatchFeed(
    pool,
    () => new pg.Client({ connectionString: server.databaseUrl }),
    origin,
    (packed) => applied.push(...unpackBatch(packed).events.map((e) => e[2])),
    REFRESH_MS,
  );
  feeds.push(feed);
  return { feed, origin, applied };
}

/** A batch the writer committed, of one event by `user`, logged `minutesAgo`; answers its transaction id. */
async function logBatch(user: string, minutesAgo: number): Promise<string> {
  const row: EventRow = [1, randomUUID(), user, "a", "engagement", "view", 1, null, null, null, new Date().toISOString()];
  const { rows } = await pool.query<{ xid: string }>(
    "INSERT INTO batch_log (origin, packed, at) VALUES ($1, $2, now() - make_interval(mins => $3)) RETURNING xid::text",
    [WRITER, Buffer.from(packBatch({ events: [row], items: [], users: [] })), minutesAgo],
  );
  return rows[0]!.xid;
}

const notify = () => pool.query(`NOTIFY recsvc_batches, '${WRITER}'`);

async function logged(): Promise<string[]> {
  const { rows } = await pool.query<{ packed: Buffer }>("SELECT packed FROM batch_log ORDER BY id");
  return rows.map((r) => unpackBatch(r.packed).events[0]![2]);
}

/** Whether the process's row holds the transaction `xid` as committed: it has told the prune it read that batch. */
async function registeredPast(origin: string, xid: string): Promise<boolean> {
  const { rows } = await pool.query<{ past: boolean }>(
    "SELECT pg_visible_in_snapshot($2::xid8, snapshot) AS past FROM batch_log_readers WHERE origin = $1",
    [origin, xid],
  );
  return rows[0]?.past ?? false;
}

describe("the batch log's prune and the processes still reading it (CLUSTER=1)", () => {
  it("keeps the batches a process still loading has not read, past 5 minutes; it then reads each exactly once, and they go once it has", async () => {
    await logBatch("before-load", 10);
    const loading = readerProcess();
    await loading.feed.markStart();
    await logBatch("during-load-1", 10);
    const lastOld = await logBatch("during-load-2", 6);
    await logBatch("during-load-3", 1);

    // The batch committed before the load is in the load: the process does not need it.
    expect(await pruneBatchLog(pool)).toBe(1);
    expect(await logged()).toEqual(["during-load-1", "during-load-2", "during-load-3"]);

    await loading.feed.listen();
    expect(loading.applied).toEqual(["during-load-1", "during-load-2", "during-load-3"]);
    await logBatch("after-load", 0);
    await notify();
    await eventually(
      async () => loading.applied.length,
      (n) => n === 4,
    );
    expect(loading.applied).toEqual(["during-load-1", "during-load-2", "during-load-3", "after-load"]);

    // Once its row says it read them, the two older than 5 minutes go.
    await eventually(
      () => registeredPast(loading.origin, lastOld),
      (past) => past,
    );
    expect(await pruneBatchLog(pool)).toBe(2);
    expect(await logged()).toEqual(["during-load-3", "after-load"]);
    expect(loading.feed.missed).toBe(0);
  });

  it("keeps nothing for a process that stopped refreshing its row 2 minutes ago, and charges it with what went", async () => {
    const dead = randomUUID();
    await pool.query("INSERT INTO batch_log_readers (origin, snapshot, seen_at) VALUES ($1, pg_current_snapshot(), now() - interval '3 minutes')", [
      dead,
    ]);
    await logBatch("unread-by-the-dead", 10);
    await logBatch("recent", 1);

    expect(await pruneBatchLog(pool)).toBe(1);
    expect(await logged()).toEqual(["recent"]);
    const { rows } = await pool.query<{ missed: string }>("SELECT missed::text FROM batch_log_readers WHERE origin = $1", [dead]);
    expect(rows).toEqual([{ missed: "1" }]);
  });

  it("forgets a process silent for 30 minutes", async () => {
    const [gone, quiet] = [randomUUID(), randomUUID()];
    await pool.query(
      `INSERT INTO batch_log_readers (origin, snapshot, seen_at)
       VALUES ($1, pg_current_snapshot(), now() - interval '31 minutes'), ($2, pg_current_snapshot(), now() - interval '29 minutes')`,
      [gone, quiet],
    );
    await pruneBatchLog(pool);
    const { rows } = await pool.query<{ origin: string }>("SELECT origin::text FROM batch_log_readers");
    expect(rows).toEqual([{ origin: quiet }]);
  });

  it("prunes what a live process has not read once it is 30 minutes old, and that process logs an error naming how far behind it is", async () => {
    const error = vi.spyOn(log, "error");
    const missedBefore = (await metrics.clusterBatchesMissed.get()).values[0]?.value ?? 0;
    const stuck = readerProcess();
    await stuck.feed.markStart();
    await logBatch("lost-1", 31);
    await logBatch("lost-2", 40);
    await logBatch("kept", 10);
    // Its row is refreshed meanwhile: it is live, yet the cap prunes the two older than 30 minutes.
    await new Promise((r) => setTimeout(r, 3 * REFRESH_MS));

    expect(await pruneBatchLog(pool)).toBe(2);
    expect(await logged()).toEqual(["kept"]);
    await eventually(
      async () => stuck.feed.missed,
      (n) => n > 0,
    );
    expect(stuck.feed.missed).toBe(2);
    const said = error.mock.calls.filter(([msg]) => msg.includes("pruned before this process read them"));
    expect(said).toHaveLength(1);
    expect(said[0]![1]).toMatchObject({ batches: 2, missed_total: 2, behind_s: expect.any(Number) });
    expect((await metrics.clusterBatchesMissed.get()).values[0]!.value).toBe(missedBefore + 2);

    await stuck.feed.listen();
    expect(stuck.applied).toEqual(["kept"]);
  });

  it("lets go of what a process has read even while a transaction left open elsewhere holds its horizon back", async () => {
    const open = new pg.Client({ connectionString: server.databaseUrl });
    await open.connect();
    try {
      await open.query("BEGIN");
      await open.query("SELECT pg_current_xact_id()"); // a transaction id: every snapshot's xmin stays at or below it
      const reader = readerProcess();
      await reader.feed.markStart();
      await reader.feed.listen();
      const xid = await logBatch("read-while-open", 10);
      await notify();
      await eventually(
        () => registeredPast(reader.origin, xid),
        (past) => past,
      );
      expect(reader.applied).toEqual(["read-while-open"]);

      expect(await pruneBatchLog(pool)).toBe(1);
      expect(await logged()).toEqual([]);
      await new Promise((r) => setTimeout(r, 3 * REFRESH_MS));
      expect(reader.feed.missed).toBe(0);
    } finally {
      await open.query("ROLLBACK");
      await open.end();
    }
  });

  it("says so when its row is gone (a PostgreSQL crash empties the table) and registers again", async () => {
    const error = vi.spyOn(log, "error");
    const reader = readerProcess();
    await reader.feed.markStart();
    await pool.query("DELETE FROM batch_log_readers WHERE origin = $1", [reader.origin]);
    const { value: rows } = await eventually(
      async () => (await pool.query("SELECT 1 FROM batch_log_readers WHERE origin = $1", [reader.origin])).rows,
      (r) => r.length === 1,
    );
    expect(rows).toHaveLength(1);
    expect(error.mock.calls.filter(([msg]) => msg.includes("row in batch_log_readers was gone"))).toHaveLength(1);
  });

  it("deletes the process's row at stop, and the log stops keeping batches for it", async () => {
    const reader = readerProcess();
    await reader.feed.markStart();
    await logBatch("unread", 10);
    expect(await pruneBatchLog(pool)).toBe(0);

    await reader.feed.stop();
    const { rows } = await pool.query("SELECT 1 FROM batch_log_readers WHERE origin = $1", [reader.origin]);
    expect(rows).toEqual([]);
    expect(await pruneBatchLog(pool)).toBe(1);
  });
});
