import pg from "pg";
import { log } from "../../src/log.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { readCopy } from "./copyReader.js";
import type { Skips } from "./skips.js";

const PROGRESS_EVERY = 1_000_000;

export interface LoadResult {
  orgs: number;
  events: number;
  ms: number;
}

/**
 * Builds this shard's organisations from PostgreSQL: items and users, then every event in time order (the
 * same path as live events, so identify aliases and co-occurrence windows replay as they happened).
 */
export async function loadShard(
  databaseUrl: string, shard: number, shards: number, orgIndex: (org: number) => OrgIndex, skips: Skips, snapshotTaken: () => void,
): Promise<LoadResult> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `recsvc-recommender-${shard}` });
  await client.connect();
  const mine = `org % ${shards} = ${shard}`;
  const nowS = Date.now() / 1000;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    // The snapshot is taken by the first query after BEGIN: what was committed before this line is in it.
    snapshotTaken();
    // A row that throws is skipped (and logged once per organisation), as live records are: a bad one must not keep the shard down.
    let items = 0;
    await readCopy(client, `SELECT org, item_id, item_type, status, attributes, extract(epoch FROM created_at) FROM items WHERE ${mine} ORDER BY org, item_id`, (r) => {
      try {
        orgIndex(Number(r[0])).upsertItem(r[1]!, r[2]!, r[3]!, JSON.parse(r[4]!) as Record<string, unknown>, r[5] === null ? null : Number(r[5]));
      } catch (err) {
        skips.add(Number(r[0]), "item", items, err);
      }
      items++;
    });
    let users = 0;
    await readCopy(client, `SELECT org, user_id, status FROM users WHERE ${mine}`, (r) => {
      try {
        orgIndex(Number(r[0])).upsertUser(r[1]!, r[2]!);
      } catch (err) {
        skips.add(Number(r[0]), "user", users, err);
      }
      users++;
    });
    let events = 0;
    await readCopy(
      client,
      `SELECT org, user_id, item_id, event_family, event_name, weight, previous_user_id, extract(epoch FROM occurred_at)
       FROM events WHERE ${mine} AND event_family <> 'exposure' ORDER BY occurred_at`,
      (r) => {
        try {
          orgIndex(Number(r[0])).applyEvent(
            { userId: r[1]!, itemId: r[2], family: r[3]!, name: r[4]!, weight: Number(r[5]), previousUserId: r[6], atS: Number(r[7]) },
            nowS,
          );
        } catch (err) {
          skips.add(Number(r[0]), "event", events, err);
        }
        if (++events % PROGRESS_EVERY === 0) log.info("recommender index: loading events", { shard, events });
      },
    );
    await client.query("COMMIT");
    const orgs = (await client.query<{ n: string }>(`SELECT count(*) AS n FROM organisations WHERE seq % ${shards} = ${shard}`)).rows[0]!.n;
    return { orgs: Number(orgs), events, ms: performance.now() - started };
  } finally {
    await client.end();
  }
}
