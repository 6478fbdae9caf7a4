import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { packBatch } from "../../src/wire/batchPack.js";
import type { EventRow } from "../../src/wire/batchRows.js";

/**
 * A process's feed of the batches others log (CLUSTER=1), with the other process played by the test on the same
 * PostgreSQL: two writer transactions of one process, the one that logged first committing last.
 */
let p: TestServer;
let org: Org;
let seq: number;

beforeAll(async () => {
  p = await startServer({ env: { CLUSTER: "1" } });
  org = await newOrg(p.url);
  await upsertItems(
    p.url,
    org,
    ["a", "b"].map((item_id) => ({ item_id })),
  );
  seq = (await p.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
}, 120_000);
afterAll(async () => {
  await p?.cleanup();
});

async function recentlyViewed(user: string): Promise<string[]> {
  const r = await recommend(p.url, org, { strategy: "recently-viewed", user_id: user });
  expect(r.status).toBe(200);
  return r.body.data.mode === "fallback" ? [] : (r.body.data.recommended_items as string[]);
}

/** What a writer thread of another process does in a batch's transaction: the event, its log row, the notice. */
async function writeLogged(c: pg.Client, origin: string, user: string, item: string): Promise<string> {
  const row: EventRow = [seq, randomUUID(), user, item, "engagement", "view", 1, null, null, null, new Date().toISOString()];
  await c.query(
    `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    row,
  );
  await c.query("INSERT INTO batch_log (origin, packed) VALUES ($1, $2)", [origin, Buffer.from(packBatch({ events: [row], items: [], users: [] }))]);
  await c.query(`NOTIFY recsvc_batches, '${origin}'`);
  return (await c.query<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid")).rows[0]!.xid;
}

describe("the feed of batches other processes log (CLUSTER=1)", () => {
  it("applies a batch whose transaction logged it first but committed after a later one was read", async () => {
    const origin = randomUUID();
    // Connections of their own: the test's pool is kept for reading.
    const [first, second] = [new pg.Client({ connectionString: p.databaseUrl }), new pg.Client({ connectionString: p.databaseUrl })];
    await Promise.all([first.connect(), second.connect()]);
    try {
      await first.query("BEGIN");
      const firstXid = await writeLogged(first, origin, "logged-first", "a");
      await second.query("BEGIN");
      const secondXid = await writeLogged(second, origin, "logged-second", "b");
      await second.query("COMMIT");
      await eventually(
        () => recentlyViewed("logged-second"),
        (items) => items.length > 0,
      );
      await first.query("COMMIT");
      const { value } = await eventually(
        () => recentlyViewed("logged-first"),
        (items) => items.length > 0,
      );
      expect(value).toEqual(["a"]);
      // The case itself: the batch committed last holds the lower id.
      const logged = await p.db().query<{ xid: string }>("SELECT xid::text FROM batch_log WHERE origin = $1 ORDER BY id", [origin]);
      expect(logged.rows.map((r) => r.xid)).toEqual([firstXid, secondXid]);
    } finally {
      await Promise.all([first.end(), second.end()]);
    }
  });

  it("has each process's row in batch_log_readers while it runs, and deletes it at SIGTERM", async () => {
    // A second process on the same database: stopping the first would stop the embedded PostgreSQL with it.
    const q = await startServer({ reuse: p, env: { CLUSTER: "1" } });
    const live = () => p.db().query<{ live: boolean }>("SELECT seen_at > now() - interval '1 minute' AS live FROM batch_log_readers");
    try {
      expect((await live()).rows).toEqual([{ live: true }, { live: true }]);
      expect(await q.stop(), q.output()).toBe(0);
      expect((await live()).rows).toEqual([{ live: true }]);
    } finally {
      await q.stop();
    }
  });
});
