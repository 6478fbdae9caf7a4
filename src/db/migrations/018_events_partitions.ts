/**
 * Retention (docs/operations.md). `events` becomes a table partitioned by the week it was received in (UTC weeks
 * from Monday), so that expired events leave by dropping whole partitions (src/db/retention.ts), never by deleting
 * rows. Partitioned by receipt rather than by the event's own `timestamp`: storage is then bounded by what arrives
 * in the retention period, every row lands in a partition the service created ahead of time, and a client's
 * backfill of old history is kept for the retention period from its arrival.
 *
 * "Stored once" moves to `event_ids`: a unique key on a partitioned table must include the partition key, so a
 * key on `events` could not see a resend that arrives in another week. `event_ids` holds every event id received
 * in the dedup window (EVENTS_DEDUP_DAYS, and a day more), one unique B-tree as `events`' primary key was, and is
 * pruned of older days by the retention task in bounded chunks. The writers COPY into both tables in one
 * transaction; `events` keeps only its BRIN and partial indexes.
 *
 * `organisations.events_retention_days`: an organisation's own, shorter retention (NULL: EVENTS_RETENTION_DAYS).
 * Its events in a partition shared with others are deleted in bounded chunks once the whole partition is past
 * its retention; `events_org_purges` records the partitions done.
 *
 * The existing rows move into weekly partitions by `received_at`; the ids received in the last eight days enter
 * `event_ids`. The migration runner logs how long it took.
 */
export const sql = `
ALTER TABLE events RENAME TO events_unpartitioned;
ALTER INDEX events_occurred_brin RENAME TO events_unpartitioned_occurred_brin;
ALTER INDEX events_recommendation RENAME TO events_unpartitioned_recommendation;
ALTER TABLE events_unpartitioned RENAME CONSTRAINT events_pkey TO events_unpartitioned_pkey;

CREATE TABLE events (
  org               integer NOT NULL,
  event_id          uuid NOT NULL,
  user_id           text NOT NULL,
  item_id           text,
  event_family      text NOT NULL,
  event_name        text NOT NULL,
  weight            real NOT NULL,
  previous_user_id  text,
  recommendation_id text,
  context           jsonb,
  occurred_at       timestamptz NOT NULL,
  received_at       timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (received_at);

-- Monday 00:00 UTC of the week holding t.
CREATE FUNCTION events_week(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS
  $$ SELECT date_trunc('week', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

-- The partition of the week holding t, created if missing; its name. Made apart and attached: CREATE TABLE …
-- PARTITION OF would take an ACCESS EXCLUSIVE lock on events, queueing every writer's COPY behind any long reader
-- (a recommender thread loading), where ATTACH PARTITION takes SHARE UPDATE EXCLUSIVE, which COPY does not wait for.
CREATE FUNCTION ensure_events_partition(t timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  week timestamptz := events_week(t);
  name text := 'events_w' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD');
BEGIN
  -- Processes starting together (CLUSTER=1) create each week once.
  PERFORM pg_advisory_xact_lock(727021);
  IF to_regclass(name) IS NULL THEN
    EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, week, week + interval '7 days');
  END IF;
  RETURN name;
END $$;

DO $$
DECLARE
  first timestamptz := coalesce((SELECT min(received_at) FROM events_unpartitioned), now());
  last timestamptz := greatest(coalesce((SELECT max(received_at) FROM events_unpartitioned), now()), now()) + interval '14 days';
  w timestamptz;
BEGIN
  FOR w IN SELECT generate_series(events_week(first), last, interval '7 days') LOOP
    PERFORM ensure_events_partition(w);
  END LOOP;
END $$;

INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at, received_at)
SELECT org, event_id, user_id, item_id, event_family, event_name, weight, previous_user_id, recommendation_id, context, occurred_at, received_at
FROM events_unpartitioned;

-- Built after the rows moved: cheaper than maintaining them row by row.
CREATE INDEX events_occurred_brin ON events USING brin (occurred_at);
-- Only events that carry a recommendation_id enter this index, so plain event ingestion does not pay for it.
CREATE INDEX events_recommendation ON events (org, recommendation_id) WHERE recommendation_id IS NOT NULL;

-- Days since 1970-01-01 (UTC) of t: the unit event_ids is pruned by.
CREATE FUNCTION events_day(t timestamptz) RETURNS integer LANGUAGE sql IMMUTABLE AS
  $$ SELECT (t AT TIME ZONE 'UTC')::date - DATE '1970-01-01' $$;

CREATE TABLE event_ids (
  org       integer NOT NULL,
  event_id  uuid NOT NULL,
  day       integer NOT NULL DEFAULT ((now() AT TIME ZONE 'UTC')::date - DATE '1970-01-01'),
  PRIMARY KEY (org, event_id)
);
INSERT INTO event_ids (org, event_id, day)
SELECT org, event_id, events_day(received_at) FROM events_unpartitioned WHERE received_at >= now() - interval '8 days';

DROP TABLE events_unpartitioned;

ALTER TABLE organisations ADD COLUMN events_retention_days integer CHECK (events_retention_days >= 1);

CREATE TABLE events_org_purges (
  org        integer NOT NULL,
  partition  text NOT NULL,
  purged_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org, partition)
);
`;
