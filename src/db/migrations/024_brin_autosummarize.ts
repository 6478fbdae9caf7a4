/**
 * The BRIN indexes of `events`' partitions summarise each block range as soon as the next one starts filling
 * (`autosummarize`, a work item autovacuum runs within a minute), not only when autovacuum next vacuums the
 * partition, which on a busy week's partition waits for a fifth of it to be new. The replay after an index
 * snapshot (docs/operations.md) reads the events received since it through `events_received_brin`, and every range
 * not yet summarised is read whole: without this a restart could read millions of the week's rows to find the
 * few thousand after its snapshot. A partitioned index takes no storage options, so each partition's own BRIN
 * indexes are set, now and as ensure_events_partition creates them.
 */
export const sql = `
CREATE OR REPLACE FUNCTION events_brin_autosummarize(partition regclass) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  idx regclass;
BEGIN
  FOR idx IN
    SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
    WHERE i.indrelid = partition AND a.amname = 'brin'
  LOOP
    EXECUTE format('ALTER INDEX %s SET (autosummarize = on)', idx);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION ensure_events_partition(t timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  week timestamptz := events_week(t);
  name text := 'events_w' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
  -- Processes starting together (CLUSTER=1) create each week once.
  PERFORM pg_advisory_xact_lock(727021);
  IF to_regclass(name) IS NULL THEN
    EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, week, week + interval '7 days');
    PERFORM events_brin_autosummarize(name::regclass);
  END IF;
  RETURN name;
END $$;

SELECT events_brin_autosummarize(relid) FROM pg_partition_tree('events') WHERE isleaf;
`;
