import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { event, eventually, upsertItems } from "../helpers/recommend.js";
import { popularScores, storedSums, total } from "../helpers/eventCounts.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";

/**
 * Index snapshots with CLUSTER=1: both processes take events and write snapshots every second, so a snapshot's
 * position meets the other process's batches on their way through the batch log. A process started late on the
 * latest snapshot must count every stored event once, as PostgreSQL holds them.
 */
let p1: TestServer;
let p2: TestServer;
let late: TestServer | undefined;
let org: Org;
const TOKEN = "metrics-token-for-cluster-snapshots";
const env = { CLUSTER: "1", RATE_LIMIT_MAX: "1000000", INDEX_SNAPSHOT_INTERVAL_S: "1", METRICS_TOKEN: TOKEN };
const ITEMS = Array.from({ length: 12 }, (_, i) => `item-${i}`);
/** Outside popular's recent window: it then ranks by plain sums of weights, which do not fade. */
const HOURS_AGO = 40 * 24;

beforeAll(async () => {
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env: { ...env, PORT: String(await freePort()) } });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ITEMS.map((item_id) => ({ item_id })),
  );
}, 120_000);
afterAll(async () => {
  await late?.stop();
  await p2?.stop();
  await p1?.cleanup();
});

describe("index snapshots written while two processes take events (CLUSTER=1)", () => {
  it("lets a process started late on the latest snapshot count every stored event once", async () => {
    let sending = true;
    let sent = 0;
    const sender = async (lane: number) => {
      const p = lane % 2 === 0 ? p1 : p2;
      for (let k = 0; sending; k++) {
        const events = Array.from({ length: 5 }, (_, j) =>
          event({ user: `u-${lane}-${k % 40}`, item: ITEMS[(lane * 7 + k * 5 + j) % ITEMS.length]!, hoursAgo: HOURS_AGO }),
        );
        const r = await call(p.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: events });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        sent++;
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    const seq = (await p1.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
    // Several rounds written while both take events.
    const { value: written } = await eventually(
      async () =>
        Number((await p1.db().query<{ n: string }>("SELECT count(*) AS n FROM org_index_snapshots WHERE org = $1 AND bytes > 0", [seq])).rows[0]!.n),
      (n) => n >= 2,
      30_000,
    );
    expect(written).toBeGreaterThanOrEqual(2);
    while (sent < 200) await new Promise((r) => setTimeout(r, 10));
    sending = false;
    await Promise.all(senders);
    await p2.stop();

    late = await startServer({ reuse: p1, env: { ...env, INDEX_SNAPSHOT_INTERVAL_S: "0", PORT: String(await freePort()) } });
    const metrics = await (await fetch(`${late.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(metrics).toMatch(/^recsvc_index_snapshot_loads_total\{result="restored"\} [1-9]/m);
    const stored = await storedSums(p1, org);
    const { value: scores } = await eventually(
      () => popularScores(late!, org),
      (s) => total(s) >= total(stored),
      30_000,
    );
    expect(scores).toEqual(stored);
    expect(await popularScores(p1, org)).toEqual(stored);
  }, 180_000);
});
