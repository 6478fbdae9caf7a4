/**
 * Snapshots of the recommender's per-organisation index (docs/operations.md, Snapshots): a restart reads the
 * latest one and replays only the events committed after it. One row per snapshot, its bytes in parts of a few
 * MiB (`org_index_snapshot_parts`, stored uncompressed: the bytes are mostly counters and ids, and compressing a
 * few hundred MiB would hold the writing connection for seconds). `position` is the pg_current_snapshot() the
 * index held every committed event of, and none after; `lineage_at` when the full load it descends from began.
 * `extra_xids`: with CLUSTER=1, other processes' batches the index had applied though they committed after the
 * position (read in the same pass of the batch log as those before it). `database` (the cluster's system identifier and the database's oid): transaction ids mean something only in the
 * database that wrote them, so a snapshot restored elsewhere by pg_dump is not used.
 *
 * `index_snapshot_fences`: what makes snapshots unusable. An erasure (kind `erasure`) fences the organisation's
 * snapshots taken before it; a retention drop or purge (kind `retention`, org -1 for every organisation) fences
 * those descending from a load that read the events it removed. Both delete the snapshots they fence.
 *
 * `events_received_brin`: the replay after a snapshot reads the events received since it; partitions by week
 * prune most of the table, the BRIN index the rest of the current week's.
 */
export const sql = `
CREATE TABLE org_index_snapshots (
  id          bigserial PRIMARY KEY,
  org         integer NOT NULL,
  taken_at    timestamptz NOT NULL,
  position    pg_snapshot NOT NULL,
  lineage_at  timestamptz NOT NULL,
  format      integer NOT NULL,
  bytes       bigint NOT NULL,
  parts       integer NOT NULL,
  sha256      text NOT NULL,
  events      bigint NOT NULL,
  database    text NOT NULL,
  extra_xids  xid8[] NOT NULL DEFAULT '{}',
  written_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX org_index_snapshots_org ON org_index_snapshots (org, taken_at DESC);

CREATE TABLE org_index_snapshot_parts (
  snapshot  bigint NOT NULL REFERENCES org_index_snapshots (id) ON DELETE CASCADE,
  seq       integer NOT NULL,
  bytes     bytea NOT NULL,
  PRIMARY KEY (snapshot, seq)
);
ALTER TABLE org_index_snapshot_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;

CREATE TABLE index_snapshot_fences (
  org   integer NOT NULL,
  kind  text NOT NULL CHECK (kind IN ('erasure', 'retention')),
  at    timestamptz NOT NULL,
  PRIMARY KEY (org, kind)
);

CREATE INDEX events_received_brin ON events USING brin (received_at);
`;
