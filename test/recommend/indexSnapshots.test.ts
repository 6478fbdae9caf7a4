import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { fromBuild } from "../helpers/build.js";
import type * as FencesModule from "../../src/db/snapshotFences.js";
import type * as SnapshotsWire from "../../src/wire/indexSnapshots.js";

const { fenceSnapshotsNow } = await fromBuild<typeof FencesModule>("src/db/snapshotFences.ts");
const { ALL_ORGS } = await fromBuild<typeof SnapshotsWire>("src/wire/indexSnapshots.ts");

/**
 * Snapshots of the recommender index (docs/operations.md, Snapshots): one server writes them every second; the
 * servers that follow it on the same database write none (INDEX_SNAPSHOT_INTERVAL_S=0), so what they load is
 * that snapshot and the events committed after it.
 */
const TOKEN = "metrics-token-for-snapshot-tests";
const base = { RATE_LIMIT_MAX: "100000", METRICS_TOKEN: TOKEN, INDEX_SNAPSHOT_MIN_EVENTS: "1", LOG_LEVEL: "info" };
const WRITING = { ...base, INDEX_SNAPSHOT_INTERVAL_S: "1" };
const READING = { ...base, INDEX_SNAPSHOT_INTERVAL_S: "0" };

let first: TestServer;
let server: TestServer;
let org: Org;
let seq: number;
const items = Array.from({ length: 12 }, (_, i) => `i${i}`);
const users = Array.from({ length: 10 }, (_, u) => `u${u}`);

/** Views and purchases over the last days: every strategy that reads the index has something to say. */
function history(round: number): EventSpec[] {
  const events: EventSpec[] = [];
  for (let u = 0; u < users.length; u++) {
    for (let k = 0; k < 4; k++) {
      const item = items[(u * 3 + k * 2 + round) % items.length]!;
      events.push({ user: users[u]!, item, hoursAgo: 40 - round * 10 - k });
      if ((u + k + round) % 3 === 0) events.push({ user: users[u]!, item, name: "purchase", hoursAgo: 39 - round * 10 - k });
    }
  }
  return events;
}

beforeAll(async () => {
  first = await startServer({ env: WRITING });
  org = await newOrg(first.url);
  seq = (await first.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
  await upsertItems(
    first.url,
    org,
    items.map((item_id, i) => ({ item_id, created_at: new Date(Date.UTC(2025, 0, 1 + i)).toISOString() })),
  );
  await sendEvents(first.url, org, history(0));
  await sendEvents(first.url, org, history(1));
  await eventually(snapshotEvents, (n) => n >= history(0).length + history(1).length, 20_000);
  await first.stop();
}, 180_000);
afterAll(async () => {
  await server?.stop();
  await first?.cleanup();
});

/** Events held by the organisation's latest stored snapshot (0 when none). */
async function snapshotEvents(): Promise<number> {
  const { rows } = await first
    .db()
    .query<{ events: string }>("SELECT events FROM org_index_snapshots WHERE org = $1 ORDER BY taken_at DESC LIMIT 1", [seq]);
  return rows[0] ? Number(rows[0].events) : 0;
}

/**
 * Every request the index answers without the model, item ids in order (`personalized`, `similar` and
 * `because-you-viewed` rank by the model, which a restart trains again: ALS from a random start).
 */
async function answers(url: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const ask = async (key: string, body: Record<string, unknown>) => {
    const r = await recommend(url, org, { limit: 10, ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out[key] = [r.body.data.mode, ...(r.body.data.recommended_items as string[])];
  };
  for (const strategy of ["popular", "trending", "new-arrivals"]) await ask(strategy, { strategy });
  for (const user of [...users, "late-user"]) {
    for (const strategy of ["recently-viewed", "buy-again"]) await ask(`${strategy}/${user}`, { strategy, user_id: user });
  }
  for (const item of items.slice(0, 6)) {
    for (const strategy of ["also-viewed", "frequently-bought-together"]) await ask(`${strategy}/${item}`, { strategy, context_item_id: item });
  }
  return out;
}

async function snapshotLoads(url: string): Promise<Record<string, number>> {
  const r = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await r.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^recsvc_index_snapshot_loads_total\{result="(\w+)"\} (\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

async function restart(env: Record<string, string> = READING): Promise<TestServer> {
  await server?.stop();
  server = await startServer({ reuse: first, env });
  return server;
}

describe("a restart with an index snapshot in place", () => {
  it("answers the same items for the same requests as before it, from the snapshot and the events committed after it", async () => {
    const s = await restart();
    expect(await snapshotLoads(s.url)).toMatchObject({ restored: 1, unreadable: 0 });
    // Committed after the snapshot: a later round of the same users, and a user the snapshot never saw.
    await sendEvents(s.url, org, [...history(2), { user: "late-user", item: "i5" }, { user: "late-user", item: "i6", name: "purchase" }]);
    const before = await answers(s.url);
    const after = await answers((await restart()).url);
    expect(after).toEqual(before);
    expect(await snapshotLoads(server.url)).toMatchObject({ restored: 1, unreadable: 0 });
    expect(after["recently-viewed/late-user"]![0]).toBe("personalized");
    expect(after["recently-viewed/late-user"]!.slice(1)).toEqual(["i5"]);
  }, 120_000);

  it("does not use a snapshot written in another database (one restored by pg_restore: its transaction ids are another database's)", async () => {
    const { rows } = await first.db().query<{ database: string }>("SELECT database FROM org_index_snapshots WHERE org = $1", [seq]);
    await first.db().query("UPDATE org_index_snapshots SET database = '1:1' WHERE org = $1", [seq]);
    const s = await restart();
    expect(await snapshotLoads(s.url)).toMatchObject({ restored: 0, missing: 1, unreadable: 0 });
    await first.db().query("UPDATE org_index_snapshots SET database = $2 WHERE org = $1", [seq, rows[0]!.database]);
  }, 120_000);

  // A full load replays the events sorted by time, where the running index applied them as they committed: its
  // co-occurrence windows may pair a few items otherwise. The fallbacks are compared with a load without snapshot.
  let fallback: Record<string, string[]>;

  it("loads an organisation whose snapshot does not match its checksum in full, says so in the log, and counts it", async () => {
    await first
      .db()
      .query(
        "UPDATE org_index_snapshot_parts SET bytes = overlay(bytes placing '\\xdeadbeef'::bytea from 200) WHERE snapshot IN (SELECT id FROM org_index_snapshots WHERE org = $1)",
        [seq],
      );
    const s = await restart();
    expect(await snapshotLoads(s.url)).toMatchObject({ restored: 0, unreadable: 1 });
    expect(s.output()).toMatch(/index snapshot unreadable; the organisation is loaded in full.*checksum/);
    fallback = await answers(s.url);
    expect(fallback["recently-viewed/late-user"]!.slice(1)).toEqual(["i5"]);
  }, 120_000);

  it("loads an organisation whose snapshot is of another format in full", async () => {
    await first.db().query("UPDATE org_index_snapshots SET format = format + 1000 WHERE org = $1", [seq]);
    const s = await restart();
    expect(await snapshotLoads(s.url)).toMatchObject({ restored: 0, unreadable: 1 });
    expect(s.output()).toMatch(/index snapshot unreadable.*format 10\d\d/);
    expect(await answers(s.url)).toEqual(fallback);
  }, 120_000);

  it("answers after either fallback as after a load with no snapshot at all, which it counts as missing", async () => {
    await first.db().query("DELETE FROM org_index_snapshots WHERE org = $1", [seq]);
    const s = await restart();
    expect(await snapshotLoads(s.url)).toMatchObject({ restored: 0, missing: 1, unreadable: 0 });
    expect(await answers(s.url)).toEqual(fallback);
  }, 120_000);
});

describe("an erasure and the snapshots taken before it", () => {
  it("never brings an erased user back: the erasure removes the organisation's snapshots and no later restart finds the user", async () => {
    const s = await restart(WRITING);
    await eventually(snapshotEvents, (n) => n > 0, 20_000);
    const viewed = await recommend(s.url, org, { strategy: "recently-viewed", user_id: "u3", limit: 10 });
    expect(viewed.body.data.mode).toBe("personalized");
    const r = await call(s.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["u3"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const id = r.body.data.erasure_id as string;
    // The snapshots taken before the request are gone with it; those of the next second's rounds are refused (its fence).
    const { rows } = await s
      .db()
      .query<{ n: string }>(
        "SELECT count(*) AS n FROM org_index_snapshots s JOIN erasures e ON e.org = s.org WHERE s.org = $1 AND s.taken_at < e.requested_at",
        [seq],
      );
    expect(Number(rows[0]!.n)).toBe(0);
    const done = await eventually(
      () => call(s.url, "GET", `/v1/users/erase/${id}`, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      60_000,
    );
    expect(done.value.body.data.status).toBe("done");
    const after = await restart();
    const again = await recommend(after.url, org, { strategy: "recently-viewed", user_id: "u3", limit: 10 });
    expect(again.status).toBe(200);
    expect(again.body.data.mode).toBe("fallback");
  }, 180_000);

  it("stops writing snapshots of an index whose load a retention drop outlived, and says so once, until a restart loads it again", async () => {
    const s = await restart(WRITING);
    await eventually(snapshotEvents, (n) => n > 0, 20_000);
    // What a retention round that drops a week records (src/db/retention.ts): every snapshot of an older load is refused.
    const client = await s.db().connect();
    try {
      await fenceSnapshotsNow(client as unknown as Parameters<typeof fenceSnapshotsNow>[0], ALL_ORGS, "retention");
    } finally {
      client.release();
    }
    await sendEvents(s.url, org, [{ user: "u1", item: "i2" }]);
    const said = "index snapshots stop until the organisation is loaded again";
    await eventually(
      async () => s.output().split(said).length - 1,
      (n) => n >= 1,
      20_000,
    );
    await sendEvents(s.url, org, [{ user: "u2", item: "i3" }]);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // two more rounds
    expect(s.output().split(said).length - 1).toBe(1);
    const written = await s
      .db()
      .query<{ n: string }>("SELECT count(*) AS n FROM org_index_snapshots WHERE org = $1 AND taken_at > now() - interval '2 seconds'", [seq]);
    expect(Number(written.rows[0]!.n)).toBe(0);
    const after = await restart(WRITING);
    await eventually(
      async () => (await after.db().query<{ n: string }>("SELECT count(*) AS n FROM org_index_snapshots WHERE org = $1", [seq])).rows[0]!.n,
      (n) => Number(n) > 0,
      20_000,
    );
  }, 180_000);
});
