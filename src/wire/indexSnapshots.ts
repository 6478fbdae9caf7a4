/** Migration 019's snapshots of the recommender index: what the writers (the recommender threads) and the fences (src/db/snapshotFences.ts) share. */

/** Held by a fence and by the last step of a snapshot's write (workers/recommender/snapshotStore.ts), so each sees the other whole. */
export const SNAPSHOT_FENCE_LOCK = 727_022;
/** Every organisation's snapshots (a retention round that dropped a partition). */
export const ALL_ORGS = -1;

/** The database a snapshot was written in (migration 019): its positions' transaction ids are this database's. */
export const THIS_DATABASE = `(SELECT system_identifier::text FROM pg_control_system()) || ':' || (SELECT oid FROM pg_database WHERE datname = current_database())::text`;

/**
 * Whether a snapshot, written in this database, whose index held every event committed before `positionAt` (and, for erasures, had applied
 * every erasure requested `60 seconds` before it) and descends from a load at `lineageAt` is still usable:
 * as SQL over a row with those columns (`taken_at`, `lineage_at`, `org`).
 */
export const SNAPSHOT_UNFENCED = `s.database = ${THIS_DATABASE} AND NOT EXISTS (
  SELECT 1 FROM index_snapshot_fences f
  WHERE (f.org = s.org OR f.org = ${ALL_ORGS})
    AND ((f.kind = 'erasure' AND f.at > s.taken_at - interval '60 seconds') OR (f.kind = 'retention' AND f.at > s.lineage_at)))`;
