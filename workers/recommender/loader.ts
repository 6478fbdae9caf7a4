import pg from "pg";
import { log } from "../../src/wire/log.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { readCopy } from "./copyReader.js";
import type { Skips } from "./skips.js";

const PROGRESS_EVERY = 1_000_000;

export interface LoadResult {
  orgs: number;
  events: number;
  ms: number;
}

/** What a load tells as it goes: the snapshot, then which organisations it has read in full. */
export interface LoadHooks {
  /** Just before the first query, which takes the snapshot: what was committed before this is in it. */
  snapshotTaken(): void;
  /** The snapshot itself (pg_current_snapshot()), before anything is read: which transactions' work it holds. */
  snapshot(text: string): void;
  /** Items and users are read; the events of `order`'s organisations follow in that order (`bySize` only). */
  catalogLoaded(order: number[]): void;
  /** The next `orgs` of the order are read in full. */
  orgsLoaded(orgs: number[]): void;
}

/** Events of organisations read in one query, up to this many (small organisations share a query). */
const EVENTS_PER_QUERY = 200_000;

/**
 * Builds this shard's organisations from PostgreSQL, in one snapshot: identity aliases as the writers decided
 * them (in commit order, migration 015: replaying identify events by time could settle them otherwise), items
 * and users, then the events in time order, but those of users an erasure is still deleting (the same path as
 * live events, so co-occurrence windows replay as they happened; an alias set first sends an id's events to its
 * user, where identify moved them live). The events are those `events` still holds, none past the retention
 * (src/db/retention.ts): a load holds no expired event. `bySize` (a restart, while the service serves):
 * organisation by organisation, smallest first, each reported once read in full.
 */
export async function loadShard(
  databaseUrl: string,
  shard: number,
  shards: number,
  orgIndex: (org: number) => OrgIndex,
  skips: Skips,
  hooks: LoadHooks,
  bySize: boolean,
): Promise<LoadResult> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `recsvc-recommender-${shard}` });
  await client.connect();
  const mine = `org % ${shards} = ${shard}`;
  const nowS = Date.now() / 1000;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    hooks.snapshotTaken();
    hooks.snapshot((await client.query<{ s: string }>("SELECT pg_current_snapshot()::text AS s")).rows[0]!.s);
    // A row that throws is skipped (and logged once per organisation), as live records are: a bad one must not keep the shard down.
    let aliases = 0;
    // First, as live: an id's later events, and a status upserted for it, went to the user it was merged into.
    await readCopy(client, `SELECT org, previous_user_id, user_id FROM identity_aliases WHERE ${mine}`, (r) => {
      try {
        orgIndex(Number(r[0])).applyAlias(r[1]!, r[2]!);
      } catch (err) {
        skips.add(Number(r[0]), "alias", aliases, err);
      }
      aliases++;
    });
    let items = 0;
    await readCopy(
      client,
      `SELECT org, item_id, item_type, status, attributes, extract(epoch FROM created_at) FROM items WHERE ${mine} ORDER BY org, item_id`,
      (r) => {
        try {
          orgIndex(Number(r[0])).upsertItem(r[1]!, r[2]!, r[3]!, JSON.parse(r[4]!) as Record<string, unknown>, r[5] === null ? null : Number(r[5]));
        } catch (err) {
          skips.add(Number(r[0]), "item", items, err);
        }
        items++;
      },
    );
    let users = 0;
    await readCopy(client, `SELECT org, user_id, status FROM users WHERE ${mine}`, (r) => {
      try {
        orgIndex(Number(r[0])).upsertUser(r[1]!, r[2]!);
      } catch (err) {
        skips.add(Number(r[0]), "user", users, err);
      }
      users++;
    });
    // Users of an erasure still deleting their events: what is left of those is not read (their rows and aliases went at once).
    const erasing = new Map<number, Set<string>>();
    await readCopy(client, `SELECT org, unnest(user_ids) FROM erasures WHERE done_at IS NULL AND ${mine}`, (r) => {
      const org = Number(r[0]);
      let users = erasing.get(org);
      if (!users) erasing.set(org, (users = new Set()));
      users.add(r[1]!);
    });
    let events = 0;
    const eventsOf = async (where: string, order: string): Promise<void> => {
      await readCopy(
        client,
        `SELECT org, user_id, item_id, event_family, event_name, weight, previous_user_id, extract(epoch FROM occurred_at)
         FROM events WHERE ${where} AND event_family <> 'exposure' AND event_name <> 'identify' ORDER BY ${order}`,
        (r) => {
          if (erasing.size > 0 && erasing.get(Number(r[0]))?.has(r[1]!)) return;
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
    };
    if (!bySize) {
      await eventsOf(mine, "occurred_at");
    } else {
      // Counting each organisation's events costs a pass over them (about a tenth of the load): worth it only when
      // the organisations read first are served while the rest load, after a restart.
      const sizes = await client.query<{ org: number; n: string }>(
        `SELECT org, count(*) AS n FROM events WHERE ${mine} AND event_family <> 'exposure' GROUP BY org ORDER BY count(*), org`,
      );
      hooks.catalogLoaded(sizes.rows.map((r) => r.org));
      for (const group of queryGroups(sizes.rows)) {
        await eventsOf(`org IN (${group.join(",")})`, "org, occurred_at");
        hooks.orgsLoaded(group);
      }
    }
    await client.query("COMMIT");
    const orgs = (await client.query<{ n: string }>(`SELECT count(*) AS n FROM organisations WHERE seq % ${shards} = ${shard}`)).rows[0]!.n;
    return { orgs: Number(orgs), events, ms: performance.now() - started };
  } finally {
    await client.end();
  }
}

/** Consecutive organisations of the order, grouped so that each query reads at most EVENTS_PER_QUERY events (or one organisation). */
function queryGroups(sizes: ReadonlyArray<{ org: number; n: string }>): number[][] {
  const groups: number[][] = [];
  let group: number[] = [];
  let events = 0;
  for (const { org, n } of sizes) {
    if (group.length > 0 && events + Number(n) > EVENTS_PER_QUERY) {
      groups.push(group);
      group = [];
      events = 0;
    }
    group.push(org);
    events += Number(n);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
