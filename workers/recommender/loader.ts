import pg from "pg";
import { log } from "../../src/wire/log.js";
import { IndexEvent } from "../index/indexEvent.js";
import type { OrgIndex } from "../index/orgIndex.js";
import { readCopy } from "./copyReader.js";
import type { Skips } from "./skips.js";
import { INDEX_SNAPSHOT_FORMAT } from "../index/orgIndex.js";
import { parseXidSnapshot, type XidSnapshot } from "../../src/wire/xidSnapshot.js";
import { latestSnapshots, missingFrom, readSnapshot, type StoredSnapshot } from "./snapshotStore.js";

const PROGRESS_EVERY = 1_000_000;

export interface LoadResult {
  orgs: number;
  events: number;
  ms: number;
  /** The database's clock at the load's snapshot (seconds): the lineage of every organisation loaded in full. */
  loadAtS: number;
  /** The organisations restored from a snapshot: which, the lineage it carried, the events it held. */
  restored: Map<number, { id: string; lineageAtS: number; events: number }>;
}

/** How the load met each organisation's snapshot (the metric recsvc_index_snapshot_loads_total counts them). */
export type SnapshotOutcome = "restored" | "missing" | "unreadable";

export interface SnapshotLoad {
  /** Forgets what a snapshot that failed half-way left in the organisation's index (it is then loaded in full). */
  discard(org: number): void;
  outcome(org: number, outcome: SnapshotOutcome, detail?: string): void;
}

/**
 * Events received this long before a snapshot's position are read again, each kept only if its transaction is
 * not in the snapshot: a transaction's rows carry its start time, and one running when the position was taken
 * began before it (the writers' transactions last a few seconds at most).
 */
const SNAPSHOT_LOOKBACK_S = 600;

/** What a load tells as it goes: its position, then which organisations it has read in full. */
export interface LoadHooks {
  /** Just before the first query, which takes the load's position: what was committed before this is in it. */
  positionTaken(): void;
  /** The position itself (pg_current_snapshot()), before anything is read: which transactions' work it holds. */
  position(text: string): void;
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
  snapshots?: SnapshotLoad,
): Promise<LoadResult> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `recsvc-recommender-${shard}` });
  await client.connect();
  const mine = `org % ${shards} = ${shard}`;
  const nowS = Date.now() / 1000;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    hooks.positionTaken();
    const at = (await client.query<{ s: string; t: number }>("SELECT pg_current_snapshot()::text AS s, extract(epoch FROM now())::float8 AS t"))
      .rows[0]!;
    hooks.position(at.s);
    const now = parseXidSnapshot(at.s);
    // Snapshots first (migration 019): each restored organisation's ids are then those its snapshot's events were counted under.
    const restored = new Map<number, StoredSnapshot & { at: XidSnapshot; extra: Set<bigint> }>();
    // Where the load's time goes (logged once it is done): what a restart costs, part by part.
    const phases: Record<string, number> = {};
    let phaseStarted = performance.now();
    const phase = (name: string): void => {
      const now = performance.now();
      phases[name] = Math.round(now - phaseStarted);
      phaseStarted = now;
    };
    if (snapshots) {
      const stored = await latestSnapshots(client, mine);
      for (const s of stored) {
        try {
          if (s.format !== INDEX_SNAPSHOT_FORMAT) throw new Error(`index snapshot: format ${s.format}, this build reads ${INDEX_SNAPSHOT_FORMAT}`);
          const reader = await readSnapshot(client, s);
          // An empty one: the thread held nothing of the organisation (no index made for it now either).
          if (s.bytes > 0) orgIndex(s.org).restoreFrom(reader);
          restored.set(s.org, { ...s, at: parseXidSnapshot(s.position), extra: new Set(s.extraXids.map(BigInt)) });
          snapshots.outcome(s.org, "restored");
        } catch (err) {
          snapshots.discard(s.org);
          snapshots.outcome(s.org, "unreadable", (err as Error).message);
        }
      }
    }
    // A row that throws is skipped (and logged once per organisation), as live records are: a bad one must not keep the shard down.
    phase("snapshotsMs");
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
    phase("aliasesMs");
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
    phase("itemsMs");
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
    phase("usersMs");
    const erasing = new Map<number, Set<string>>();
    await readCopy(client, `SELECT org, unnest(user_ids) FROM erasures WHERE done_at IS NULL AND ${mine}`, (r) => {
      const org = Number(r[0]);
      let users = erasing.get(org);
      if (!users) erasing.set(org, (users = new Set()));
      users.add(r[1]!);
    });
    let events = 0;
    const event = new IndexEvent();
    /** `after`: read only what is missing from a restored organisation's snapshot (rows carry their xmin). */
    const eventsOf = async (where: string, order: string, after = false): Promise<void> => {
      await readCopy(
        client,
        `SELECT org, user_id, item_id, event_family, event_name, weight, previous_user_id, extract(epoch FROM occurred_at)${after ? ", xmin" : ""}
         FROM events WHERE ${where} AND event_family <> 'exposure' AND event_name <> 'identify' ORDER BY ${order}`,
        (r) => {
          if (after) {
            const s = restored.get(Number(r[0]))!;
            if (!missingFrom(s.at, now, r[8]!, s.extra)) return;
          }
          if (erasing.size > 0 && erasing.get(Number(r[0]))?.has(r[1]!)) return;
          try {
            orgIndex(Number(r[0])).applyEvent(event.fromText(r[1]!, r[2] ?? null, r[3]!, r[4]!, Number(r[5]), r[6] ?? null, Number(r[7])), nowS);
          } catch (err) {
            skips.add(Number(r[0]), "event", events, err);
          }
          if (++events % PROGRESS_EVERY === 0) log.info("recommender index: loading events", { shard, events });
        },
      );
    };
    // What committed after each snapshot, organisation by organisation (a restored one is served once it is read).
    // One pass over the recent partitions for all of them (rounds move unchanged snapshots on, so all are recent).
    const afterSnapshots = async (each: (orgs: number[]) => void): Promise<void> => {
      if (restored.size === 0) return;
      const since = Math.min(...[...restored.values()].map((s) => s.takenAtS)) - SNAPSHOT_LOOKBACK_S;
      await eventsOf(`org IN (${[...restored.keys()].join(",")}) AND received_at >= to_timestamp(${since})`, "org, occurred_at", true);
      each([...restored.keys()]);
    };
    // `events` has no index by organisation: reading any organisation's history is a pass over all of it. When every
    // organisation of the shard was restored (rounds snapshot empty ones too), there is none to make.
    let full = mine;
    if (snapshots) {
      const { rows } = await client.query<{ seq: number }>(`SELECT seq FROM organisations WHERE seq % ${shards} = ${shard} ORDER BY seq`);
      const rest = rows.map((r) => r.seq).filter((org) => !restored.has(org));
      full = rest.length === 0 ? "false" : `org IN (${rest.join(",")})`;
    }
    if (!bySize) {
      await afterSnapshots(() => undefined);
      if (full !== "false") await eventsOf(full, "occurred_at");
    } else if (full === "false") {
      hooks.catalogLoaded([...restored.keys()]);
      await afterSnapshots((orgs) => hooks.orgsLoaded(orgs));
    } else {
      // Counting each organisation's events costs a pass over them (about a tenth of the load): worth it only when
      // the organisations read first are served while the rest load, after a restart.
      const sizes = await client.query<{ org: number; n: string }>(
        `SELECT org, count(*) AS n FROM events WHERE ${full} AND event_family <> 'exposure' GROUP BY org ORDER BY count(*), org`,
      );
      hooks.catalogLoaded([...restored.keys(), ...sizes.rows.map((r) => r.org)]);
      await afterSnapshots((orgs) => hooks.orgsLoaded(orgs));
      for (const group of queryGroups(sizes.rows)) {
        await eventsOf(`org IN (${group.join(",")})`, "org, occurred_at");
        hooks.orgsLoaded(group);
      }
    }
    phase("eventsMs");
    log.info("recommender index loaded", { shard, restored: restored.size, events, ...phases });
    await client.query("COMMIT");
    const orgs = (await client.query<{ n: string }>(`SELECT count(*) AS n FROM organisations WHERE seq % ${shards} = ${shard}`)).rows[0]!.n;
    const lineage = new Map([...restored].map(([org, s]) => [org, { id: s.id, lineageAtS: s.lineageAtS, events: s.events }]));
    return { orgs: Number(orgs), events, ms: performance.now() - started, loadAtS: at.t, restored: lineage };
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
