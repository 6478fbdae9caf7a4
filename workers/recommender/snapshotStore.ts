import { createHash } from "node:crypto";
import pg from "pg";
import { ALL_ORGS, SNAPSHOT_FENCE_LOCK, SNAPSHOT_UNFENCED, THIS_DATABASE } from "../../src/wire/indexSnapshots.js";
import { committedBefore, type XidSnapshot } from "../../src/wire/xidSnapshot.js";
import { INDEX_SNAPSHOT_FORMAT } from "../index/orgIndex.js";
import { SnapshotSections, type SnapshotReader } from "../index/snapshotBytes.js";
import { readCopyBinary } from "./copyBinaryReader.js";

/** What a recommender thread knows of a snapshot it writes or reads (migration 019). */
export interface SnapshotMeta {
  org: number;
  /** pg_current_snapshot() text: the index held every event committed before it, and none after. */
  position: string;
  /** The database's clock when `position` was taken, and when the full load the index descends from began (seconds). */
  takenAtS: number;
  lineageAtS: number;
  /** Events the index applied since its full load (what a replay would cost). */
  events: number;
  /** Other processes' transactions the index had applied though they committed after `position` (CLUSTER=1). */
  extraXids: string[];
}

export interface StoredSnapshot extends SnapshotMeta {
  id: string;
  format: number;
  bytes: number;
}

export type WriteOutcome = "written" | "fenced";

/**
 * Moves snapshots of organisations whose index has not changed since to a later position (the same bytes hold
 * for it: nothing of theirs committed in between), unless a fence forbids it at that position. Returns those moved.
 */
export async function moveSnapshots(
  databaseUrl: string,
  shard: number,
  ids: readonly string[],
  position: string,
  takenAtS: number,
  extraXids: string[],
): Promise<Set<string>> {
  const c = new pg.Client({ connectionString: databaseUrl, application_name: `recsvc-recommender-${shard}-snapshot` });
  await c.connect();
  try {
    await c.query("BEGIN");
    await c.query("SELECT pg_advisory_xact_lock($1)", [SNAPSHOT_FENCE_LOCK]);
    const { rows } = await c.query<{ id: string }>(
      `UPDATE org_index_snapshots s SET position = $2::pg_snapshot, taken_at = to_timestamp($3), extra_xids = $4::xid8[]
       WHERE id = ANY($1::bigint[]) AND ${SNAPSHOT_UNFENCED.replaceAll("s.taken_at", "to_timestamp($3)")} RETURNING id`,
      [ids, position, takenAtS, extraXids],
    );
    await c.query("COMMIT");
    return new Set(rows.map((r) => r.id));
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * Stores one snapshot: its parts, then (holding the fence lock, briefly) the check that no erasure or retention
 * round fenced it meanwhile, and the removal of the organisation's older snapshots but the one before. One
 * transaction: a snapshot is whole or absent.
 */
export async function writeSnapshot(
  databaseUrl: string,
  shard: number,
  meta: SnapshotMeta,
  parts: readonly Buffer[],
  bytes: number,
  digest: string,
): Promise<{ outcome: WriteOutcome; id?: string; outlived?: true }> {
  const c = new pg.Client({ connectionString: databaseUrl, application_name: `recsvc-recommender-${shard}-snapshot` });
  await c.connect();
  try {
    // A retention round since the index's load refuses every snapshot of it (the index holds expired events):
    // known before its bytes are written, which would only be rolled back.
    const outlived = await c.query(
      `SELECT 1 FROM index_snapshot_fences WHERE (org = $1 OR org = ${ALL_ORGS}) AND kind = 'retention' AND at > to_timestamp($2)`,
      [meta.org, meta.lineageAtS],
    );
    if ((outlived.rowCount ?? 0) > 0) return { outcome: "fenced", outlived: true };
    await c.query("BEGIN");
    const { rows } = await c.query<{ id: string }>(
      `INSERT INTO org_index_snapshots (org, taken_at, position, lineage_at, format, bytes, parts, sha256, events, database, extra_xids)
       VALUES ($1, to_timestamp($2), $3::pg_snapshot, to_timestamp($4), $5, $6, $7, $8, $9, ${THIS_DATABASE}, $10::xid8[]) RETURNING id`,
      [meta.org, meta.takenAtS, meta.position, meta.lineageAtS, INDEX_SNAPSHOT_FORMAT, bytes, parts.length, digest, meta.events, meta.extraXids],
    );
    const id = rows[0]!.id;
    for (let seq = 0; seq < parts.length; seq++) {
      await c.query("INSERT INTO org_index_snapshot_parts (snapshot, seq, bytes) VALUES ($1, $2, $3)", [id, seq, parts[seq]]);
    }
    await c.query("SELECT pg_advisory_xact_lock($1)", [SNAPSHOT_FENCE_LOCK]);
    const usable = await c.query(`SELECT 1 FROM org_index_snapshots s WHERE id = $1 AND ${SNAPSHOT_UNFENCED}`, [id]);
    if (usable.rowCount === 0) {
      await c.query("ROLLBACK");
      return { outcome: "fenced" };
    }
    await c.query(
      `DELETE FROM org_index_snapshots WHERE org = $1 AND id <> $2
         AND id NOT IN (SELECT id FROM org_index_snapshots WHERE org = $1 AND id <> $2 ORDER BY taken_at DESC LIMIT 1)`,
      [meta.org, id],
    );
    await c.query("COMMIT");
    return { outcome: "written", id };
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The latest usable snapshot of each of the shard's organisations (read in the load's transaction). */
export async function latestSnapshots(c: pg.Client, mine: string): Promise<StoredSnapshot[]> {
  const { rows } = await c.query<{
    id: string;
    org: number;
    position: string;
    taken: number;
    lineage: number;
    format: number;
    bytes: string;
    events: string;
    extra: string[];
  }>(
    `SELECT DISTINCT ON (org) id, org, position::text AS position, extract(epoch FROM taken_at)::float8 AS taken,
            extract(epoch FROM lineage_at)::float8 AS lineage, format, bytes, events, extra_xids::text[] AS extra
     FROM org_index_snapshots s WHERE ${mine} AND ${SNAPSHOT_UNFENCED} ORDER BY org, taken_at DESC`,
  );
  return rows.map((r) => ({
    id: r.id,
    org: r.org,
    position: r.position,
    takenAtS: r.taken,
    lineageAtS: r.lineage,
    format: r.format,
    bytes: Number(r.bytes),
    events: Number(r.events),
    extraXids: r.extra,
  }));
}

/**
 * A snapshot's sections, checked against its size and digest; throws when they do not match. Its parts are cut
 * into sections as they arrive (each section copied once, into memory of its own), hashed on the way.
 */
export async function readSnapshot(c: pg.Client, s: StoredSnapshot): Promise<SnapshotReader> {
  if (!/^\d+$/.test(s.id)) throw new Error(`not a snapshot id: ${s.id}`);
  const digest = await c.query<{ sha256: string }>("SELECT sha256 FROM org_index_snapshots WHERE id = $1", [s.id]);
  const sections = new SnapshotSections(s.bytes);
  const hash = createHash("sha256");
  await readCopyBinary(c, `SELECT bytes FROM org_index_snapshot_parts WHERE snapshot = ${s.id} ORDER BY seq`, {
    field: (_row, field, length) => {
      if (field !== 0 || length < 0) throw new Error("index snapshot: a part that does not read");
    },
    bytes: (piece) => {
      sections.push(piece);
      hash.update(piece);
    },
  });
  const reader = sections.end();
  if (hash.digest("hex") !== digest.rows[0]?.sha256) throw new Error("index snapshot: its bytes do not match its checksum");
  return reader;
}

/**
 * Whether a row written by transaction `xmin` (the 32-bit id PostgreSQL keeps in a row) is missing from an
 * index at `position` (and not among the `extra` transactions it applied past it): its full id is the one nearest
 * below `now`'s xmax, which every committed row's is.
 */
export function missingFrom(position: XidSnapshot, now: XidSnapshot, xmin: string, extra: ReadonlySet<bigint>): boolean {
  const low = BigInt(xmin);
  let full = ((now.xmax >> 32n) << 32n) | low;
  if (full >= now.xmax) full -= 1n << 32n;
  return !committedBefore(position, full) && !extra.has(full);
}
