import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../../src/db/migrate.js";
import { partitionName, weekStart } from "../../../src/db/retention.js";
import { call, newOrg } from "../../helpers/api.js";
import { startDatabase, startServer, type TestDatabase } from "../../helpers/server.js";

/** Migration 018 on a database as the version before it left it: `events` unpartitioned, keyed by (org, event_id). */
const DAY_MS = 86_400_000;
const AGES_DAYS = [40, 10, 2, 0];
let database: TestDatabase;
const ids = AGES_DAYS.map(() => randomUUID());

beforeAll(async () => {
  database = await startDatabase();
  const db = database.db();
  await migrate(db, 17);
  await db.query("INSERT INTO organisations (id, name) VALUES ($1, 'before 018')", [randomUUID()]);
  for (const [i, age] of AGES_DAYS.entries()) {
    await db.query(
      `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
       VALUES (1, $1, 'u', 'i', 'engagement', 'view', 1, now() - $2 * interval '1 day', now() - $2 * interval '1 day')`,
      [ids[i], age],
    );
  }
  await migrate(db);
}, 60_000);
afterAll(async () => {
  await database?.cleanup();
});

describe("migration 018 (events partitions)", () => {
  it("moves every event into the partition of the week it was received in, and keeps the next weeks ready", async () => {
    const { rows } = await database
      .db()
      .query<{ id: string; p: string; age: number }>(
        "SELECT event_id::text AS id, tableoid::regclass::text AS p, round(extract(epoch FROM now() - received_at) / 86400)::int AS age FROM events ORDER BY received_at",
      );
    const now = Date.now();
    expect(rows.map((r) => [r.id, r.age])).toEqual(ids.map((id, i) => [id, AGES_DAYS[i]]));
    for (const r of rows) expect(r.p).toBe(partitionName(weekStart(now - r.age * DAY_MS)));
    const ahead = await database.db().query<{ r: string | null }>("SELECT to_regclass($1)::text AS r", [partitionName(weekStart(now) + 14 * DAY_MS)]);
    expect(ahead.rows[0]!.r).not.toBeNull();
  });

  it("keeps the ids received in the last eight days for dedup; a server started on it keeps every event and stores a resend once", async () => {
    const held = await database.db().query<{ id: string }>("SELECT event_id::text AS id FROM event_ids ORDER BY day");
    expect(held.rows.map((r) => r.id)).toEqual(ids.slice(2));
    const server = await startServer({ reuse: { dataDir: undefined, databaseUrl: database.databaseUrl } });
    try {
      const org = await newOrg(server.url);
      const seq = (await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId])).rows[0]!.seq;
      const e = { user_id: "v", event_family: "engagement", event_name: "view", item_id: "i", event_id: randomUUID() };
      for (let i = 0; i < 2; i++) expect((await call(server.url, "POST", "/v1/events/ingest", { json: [e], apiKey: org.pk })).status).toBe(202);
      const n = await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE org = $1", [seq]);
      expect(n.rows[0]!.n).toBe(1);
      const migrated = await server.db().query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE org = 1");
      expect(migrated.rows[0]!.n).toBe(AGES_DAYS.length);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
