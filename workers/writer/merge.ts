/**
 * Staging tables live per connection (TEMP: no WAL) and empty themselves at commit. A batch is COPYed into
 * them, then merged into the real tables by the statements below, all in one transaction.
 */
export const STAGING_DDL = `
CREATE TEMP TABLE IF NOT EXISTS stage_events (
  org integer, event_id uuid, user_id text, item_id text, event_family text, event_name text, weight real,
  previous_user_id text, recommendation_id text, context jsonb, occurred_at timestamptz
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_items (
  seq integer, org integer, item_id text, item_type text, status text, attributes jsonb, created_at timestamptz,
  attribute_bytes integer
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS stage_users (
  seq integer, org integer, user_id text, status text, attributes jsonb, created_at timestamptz
) ON COMMIT DELETE ROWS;
`;

export const COPY_EVENTS = "COPY stage_events FROM STDIN";
/**
 * Straight into the real tables: the events, and their ids into `event_ids`, whose primary key (org, event_id)
 * refuses the whole transaction if an id is already held there (every id received in the dedup window: migration
 * 020). `events` itself is partitioned by week of receipt and has no unique key.
 */
export const COPY_EVENTS_DIRECT = `COPY events (org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id,
  recommendation_id, context, occurred_at) FROM STDIN`;
export const COPY_EVENT_IDS = "COPY event_ids (org, event_id) FROM STDIN";
/** The same in PostgreSQL's binary format, as workers/writer/eventsCopy.ts writes a batch of events only. */
export const COPY_EVENTS_DIRECT_BINARY = `${COPY_EVENTS_DIRECT} (FORMAT binary); ${COPY_EVENT_IDS} (FORMAT binary)`;
export const COPY_ITEMS = "COPY stage_items FROM STDIN";
export const COPY_USERS = "COPY stage_users FROM STDIN";

/**
 * Dedup by (organisation, event_id) within the window `event_ids` holds: a repeated event is stored once. Its id
 * enters `event_ids` first, and only the events whose id was new are stored (the first of a batch's repeats, in
 * the staging table's order, which is the batch's). Returns the ids that were already held (so that the index
 * does not count them twice); repeats inside one batch are left to the caller.
 */
export const MERGE_EVENTS = `
WITH fresh AS (
  INSERT INTO event_ids (org, event_id) SELECT org, event_id FROM stage_events
  ON CONFLICT (org, event_id) DO NOTHING
  RETURNING org, event_id
), inserted AS (
  INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at)
  SELECT DISTINCT ON (s.org, s.event_id) s.org, s.event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at
  FROM stage_events s JOIN fresh f ON f.org = s.org AND f.event_id = s.event_id
  ORDER BY s.org, s.event_id, s.ctid
)
SELECT DISTINCT s.org, s.event_id::text AS event_id FROM stage_events s
WHERE NOT EXISTS (SELECT 1 FROM fresh f WHERE f.org = s.org AND f.event_id = s.event_id)`;

/**
 * Upsert by id (the last record of a batch wins); triggers keep every status change (migration 004) and the
 * organisation's usage, refusing the statement past a quota (migration 013).
 */
export const MERGE_ITEMS = `
WITH s AS (
  SELECT DISTINCT ON (org, item_id) * FROM stage_items ORDER BY org, item_id, seq DESC
)
INSERT INTO items (org, item_id, item_type, status, attributes, created_at, updated_at, attribute_bytes)
SELECT org, item_id, item_type, status, attributes, created_at, now(), attribute_bytes FROM s
ON CONFLICT (org, item_id) DO UPDATE SET
  item_type = EXCLUDED.item_type, status = EXCLUDED.status, attributes = EXCLUDED.attributes,
  created_at = COALESCE(EXCLUDED.created_at, items.created_at), updated_at = now(), attribute_bytes = EXCLUDED.attribute_bytes`;

export const MERGE_USERS = `
WITH s AS (
  SELECT DISTINCT ON (org, user_id) * FROM stage_users ORDER BY org, user_id, seq DESC
)
INSERT INTO users (org, user_id, status, attributes, created_at, updated_at)
SELECT org, user_id, status, attributes, created_at, now() FROM s
ON CONFLICT (org, user_id) DO UPDATE SET
  status = EXCLUDED.status, attributes = EXCLUDED.attributes, created_at = EXCLUDED.created_at, updated_at = now()`;

/** The usage the batch's organisations have once it is written (src/wire/writeTasks.ts UsageRow), read before its commit. */
export const READ_USAGE = `
SELECT org, kind, records::float8, attribute_bytes::float8, version::float8 FROM org_usage WHERE org = ANY($1::int[])`;

/** The writer connection's default quotas, which the triggers read when an organisation has none of its own. */
export const SET_QUOTAS = `
SELECT set_config('recsvc.org_max_items', $1, false), set_config('recsvc.org_max_users', $2, false),
  set_config('recsvc.org_max_attribute_bytes', $3, false)`;
