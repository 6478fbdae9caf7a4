import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { popularScores, storedSums, total } from "../helpers/eventCounts.js";
import { startDatabase, startServer, type TestDatabase, type TestServer } from "../helpers/server.js";

/**
 * A snapshot's `extra_xids` (docs/operations.md, CLUSTER=1): with several processes, a round's position can be
 * taken before another process's batch commits while that batch is already in the index when it is copied. The
 * snapshot then names the batch's transaction, and a process that starts late on it must not replay that batch
 * again. The race is made here on purpose: a snapshot that holds batch B is given a position taken before B
 * committed, as such a round leaves it, and a late start must count B once; named nowhere, B counts twice.
 */
const TOKEN = "metrics-token-for-extra-xids";
const base = { RATE_LIMIT_MAX: "100000", METRICS_TOKEN: TOKEN, INDEX_SNAPSHOT_MIN_EVENTS: "1", LOG_LEVEL: "info" };
const ITEMS = Array.from({ length: 8 }, (_, i) => `item-${i}`);
/** Outside popular's recent window: it then ranks by plain sums of weights, which do not fade. */
const HOURS_AGO = 40 * 24;

let database: TestDatabase;
let writer: TestServer;
let late: TestServer | undefined;
let org: Org;
let seq: number;

const batch = (prefix: string, n: number): EventSpec[] =>
  Array.from({ length: n }, (_, k) => ({ user: `${prefix}-${k % 7}`, item: ITEMS[(k * 3) % ITEMS.length]!, hoursAgo: HOURS_AGO }));
const BATCH_A = batch("a", 40);
const BATCH_B = batch("b", 25);

/** Events held by the organisation's latest stored snapshot (0 when none). */
async function snapshotEvents(): Promise<number> {
  const { rows } = await database
    .db()
    .query<{ events: string }>("SELECT events FROM org_index_snapshots WHERE org = $1 AND bytes > 0 ORDER BY taken_at DESC LIMIT 1", [seq]);
  return rows[0] ? Number(rows[0].events) : 0;
}

async function storedEvents(userPrefix: string): Promise<number> {
  const { rows } = await database
    .db()
    .query<{ n: string }>("SELECT count(*) AS n FROM events WHERE org = $1 AND user_id LIKE $2", [seq, `${userPrefix}-%`]);
  return Number(rows[0]!.n);
}

/** Starts a process on the stored snapshot (it writes none) and reads its popular scores once it has loaded. */
async function lateScores(): Promise<Record<string, number>> {
  await late?.stop();
  late = await startServer({ reuse: database, env: { ...base, INDEX_SNAPSHOT_INTERVAL_S: "0" } });
  const url = late.url;
  await eventually(
    async () => (await fetch(`${url}/readyz`)).status,
    (status) => status === 200,
    60_000,
  );
  const metrics = await (await fetch(`${late.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  expect(metrics).toMatch(/^recsvc_index_snapshot_loads_total\{result="restored"\} [1-9]/m);
  return popularScores(late, org);
}

let positionBeforeB: { position: string; takenAt: string };
let xidsOfB: string[];

beforeAll(async () => {
  database = await startDatabase();
  writer = await startServer({ reuse: database, env: { ...base, INDEX_SNAPSHOT_INTERVAL_S: "1" } });
  org = await newOrg(writer.url);
  seq = (await database.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
  await upsertItems(
    writer.url,
    org,
    ITEMS.map((item_id) => ({ item_id })),
  );
  await sendEvents(writer.url, org, BATCH_A);
  await eventually(
    () => storedEvents("a"),
    (n) => n === BATCH_A.length,
    20_000,
  );
  // A position that holds A and not B, as a round taken just before B committed has.
  positionBeforeB = (
    await database.db().query<{ position: string; takenAt: string }>(`SELECT pg_current_snapshot()::text AS position, now()::text AS "takenAt"`)
  ).rows[0]!;
  await sendEvents(writer.url, org, BATCH_B);
  await eventually(
    () => storedEvents("b"),
    (n) => n === BATCH_B.length,
    20_000,
  );
  await eventually(snapshotEvents, (n) => n >= BATCH_A.length + BATCH_B.length, 30_000);
  await writer.stop();
  // B's transactions as the snapshot would name them: full 64-bit ids (the epoch of the current one, and B's xmin).
  xidsOfB = (
    await database.db().query<{ xid: string }>(
      `SELECT DISTINCT (((pg_snapshot_xmax(pg_current_snapshot())::text::bigint >> 32) << 32) | xmin::text::bigint)::text AS xid
       FROM events WHERE org = $1 AND user_id LIKE 'b-%'`,
      [seq],
    )
  ).rows.map((r) => r.xid);
  // Only the latest snapshot (which holds A and B) stays, at the position before B.
  await database
    .db()
    .query(
      `DELETE FROM org_index_snapshots WHERE org = $1 AND id <> (SELECT id FROM org_index_snapshots WHERE org = $1 AND bytes > 0 ORDER BY taken_at DESC LIMIT 1)`,
      [seq],
    );
}, 180_000);
afterAll(async () => {
  await late?.stop();
  await writer?.stop();
  await database?.cleanup();
});

async function placeSnapshot(extraXids: string[]): Promise<void> {
  const r = await database
    .db()
    .query("UPDATE org_index_snapshots SET position = $2::pg_snapshot, taken_at = $3::timestamptz, extra_xids = $4::xid8[] WHERE org = $1", [
      seq,
      positionBeforeB.position,
      positionBeforeB.takenAt,
      extraXids,
    ]);
  expect(r.rowCount).toBe(1);
}

describe("a late start on a snapshot that holds a batch committed after its position (extra_xids)", () => {
  it("counts that batch once when the snapshot names its transaction", async () => {
    expect(xidsOfB.length).toBeGreaterThan(0);
    await placeSnapshot(xidsOfB);
    const scores = await lateScores();
    const stored = await storedSums(late!, org);
    expect(total(stored)).toBe(BATCH_A.length + BATCH_B.length);
    expect(scores).toEqual(stored);
  }, 120_000);

  it("counts it twice when the snapshot does not name it: the names are what keeps it once", async () => {
    await placeSnapshot([]);
    const scores = await lateScores();
    expect(total(scores)).toBe(BATCH_A.length + 2 * BATCH_B.length);
  }, 120_000);
});
