import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../../src/db/migrate.js";
import { startDatabase, type TestDatabase } from "../../helpers/server.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await startDatabase();
  await migrate(database.db(), 23);
  await database.db().query("SELECT ensure_events_partition(now() - interval '70 days')");
  await migrate(database.db());
}, 60_000);
afterAll(async () => {
  await database?.cleanup();
});

/** Each partition's BRIN indexes, with whether they summarise a range as soon as the next one fills. */
async function brinIndexes(): Promise<Array<{ partition: string; index: string; auto: boolean }>> {
  const { rows } = await database.db().query<{ partition: string; index: string; auto: boolean }>(
    `SELECT t.relid::text AS partition, c.relname AS index, coalesce('autosummarize=on' = ANY(c.reloptions), false) AS auto
     FROM pg_partition_tree('events') t JOIN pg_index i ON i.indrelid = t.relid JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_am a ON a.oid = c.relam
     WHERE t.isleaf AND a.amname = 'brin' ORDER BY 1, 2`,
  );
  return rows;
}

describe("migration 024 (BRIN autosummarize)", () => {
  it("sets autosummarize on the BRIN indexes of every partition made before it, an old week's included", async () => {
    const before = await brinIndexes();
    // Weeks made by 018 and the old one made above: each with its two BRIN indexes (occurred_at, received_at).
    expect(new Set(before.map((r) => r.partition)).size).toBeGreaterThanOrEqual(4);
    expect(before.length).toBe(2 * new Set(before.map((r) => r.partition)).size);
    expect(before.filter((r) => !r.auto)).toEqual([]);
  });

  it("sets it on the partitions ensure_events_partition makes afterwards", async () => {
    const { rows } = await database.db().query<{ name: string }>("SELECT ensure_events_partition(now() + interval '120 days') AS name");
    const made = (await brinIndexes()).filter((r) => r.partition === rows[0]!.name);
    expect(made.map((r) => r.auto)).toEqual([true, true]);
  });
});
