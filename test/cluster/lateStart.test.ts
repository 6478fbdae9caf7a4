import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { event, eventually, upsertItems } from "../helpers/recommend.js";
import { popularScores, storedSums, total } from "../helpers/eventCounts.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { committedBefore, parseXidSnapshot } from "../../src/wire/xidSnapshot.js";

/**
 * A process that starts while another ingests without pause: every batch must count once in its recommender,
 * whether its load read it from the tables or its feed brought it (the batches committed during its load).
 */
let p1: TestServer;
let p2: TestServer | undefined;
let org: Org;
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "1000000" };
const ITEMS = Array.from({ length: 12 }, (_, i) => `item-${i}`);
/** Old enough to be outside popular's recent window: it then ranks by plain sums of weights, which do not fade. */
const HOURS_AGO = 40 * 24;

beforeAll(async () => {
  p1 = await startServer({ env });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ITEMS.map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

describe("a process started while another ingests (CLUSTER=1)", () => {
  it("counts every event once in its recommender, as the process that took them does and as PostgreSQL holds them", async () => {
    let sending = true;
    let sent = 0;
    const sender = async (lane: number) => {
      let previous: Array<Record<string, unknown>> = [];
      for (let k = 0; sending; k++) {
        // Every seventh request repeats the one before (a client's retry): stored once, so it must count once.
        const events =
          k % 7 === 6
            ? previous
            : Array.from({ length: 5 }, (_, j) =>
                event({ user: `u-${lane}-${k % 40}`, item: ITEMS[(lane * 7 + k * 5 + j) % ITEMS.length]!, hoursAgo: HOURS_AGO }),
              );
        const r = await call(p1.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: events });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        previous = events;
        sent++;
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    // The second process starts (loads the tables, then follows the feed) while batches commit without pause.
    while (sent < 50) await new Promise((r) => setTimeout(r, 10));
    p2 = await startServer({ reuse: p1, env });
    const startedAt = sent;
    while (sent < startedAt + 50) await new Promise((r) => setTimeout(r, 10));
    sending = false;
    await Promise.all(senders);

    const stored = await storedSums(p1, org);
    const { value: late } = await eventually(
      () => popularScores(p2!, org),
      (scores) => total(scores) >= total(stored),
      30_000,
    );
    expect(await popularScores(p1, org)).toEqual(stored);
    expect(late).toEqual(stored);
  });

  it("tells which transactions a load's snapshot holds as PostgreSQL's pg_visible_in_snapshot does", async () => {
    const db = p1.db();
    // A real snapshot with a transaction in progress in it, and made-up ones covering each case.
    const open = await db.connect();
    try {
      await open.query("BEGIN");
      const running = (await open.query<{ x: string }>("SELECT pg_current_xact_id()::text AS x")).rows[0]!.x;
      const live = (await db.query<{ s: string }>("SELECT pg_current_snapshot()::text AS s")).rows[0]!.s;
      expect(live).toContain(running);
      for (const text of [live, "100:100:", "100:120:105,110,119", "5000000000:5000000007:5000000001"]) {
        const snapshot = parseXidSnapshot(text);
        const ids = [1n, 99n, 100n, 104n, 105n, 106n, 110n, 119n, 120n, 121n, 4999999999n, 5000000001n, 5000000002n, 5000000007n];
        ids.push(...[snapshot.xmin - 1n, snapshot.xmin, snapshot.xmax - 1n, snapshot.xmax, ...snapshot.inProgress].filter((x) => x > 0n));
        const { rows } = await db.query<{ x: string; visible: boolean }>(
          "SELECT x::text, pg_visible_in_snapshot(x::text::xid8, $1::pg_snapshot) AS visible FROM unnest($2::bigint[]) AS x",
          [text, ids.map(String)],
        );
        for (const r of rows) expect([text, r.x, committedBefore(snapshot, BigInt(r.x))]).toEqual([text, r.x, r.visible]);
      }
    } finally {
      await open.query("ROLLBACK");
      open.release();
    }
  });
});
