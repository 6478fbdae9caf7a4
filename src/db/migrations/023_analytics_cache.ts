/**
 * What the analytics over time (README, Analytics) keep of the days that are over, so that a year's series is
 * read from a few thousand rows instead of counted again from millions of events and served recommendations at
 * each call. Filled by the reads themselves (src/recommend/analyticsCache.ts), never by the writers, so ingestion
 * and serving pay nothing for it; forgotten where what it counted is deleted: with a retention drop or an
 * organisation's purge (src/db/retention.ts, which bounds it as `events` is bounded) and after an erasure.
 *
 * `analytics_days`: the days of an organisation counted so far: its events (per hour and family, in
 * `analytics_event_hours`) and its served recommendations (per scenario and strategy, with their clicks and
 * conversions as of `served_as_of`, in `analytics_served_days`).
 *
 * `recommendation_day(id, ms)`: the UTC day of the millisecond a v7 recommendation id leads with, `ms` later;
 * NULL for any other text (an event's recommendation_id is what the client sent).
 */
export const sql = `
CREATE TABLE analytics_days (
  org             integer NOT NULL,
  day             date NOT NULL,
  events_counted  boolean NOT NULL DEFAULT false,
  served_as_of    timestamptz,
  PRIMARY KEY (org, day)
);
CREATE TABLE analytics_event_hours (
  org     integer NOT NULL,
  hour    timestamptz NOT NULL,
  family  text NOT NULL,
  events  integer NOT NULL,
  PRIMARY KEY (org, hour, family)
);
CREATE TABLE analytics_served_days (
  org          integer NOT NULL,
  day          date NOT NULL,
  scenario     text NOT NULL,
  strategy     text NOT NULL,
  served       integer NOT NULL,
  clicks       integer NOT NULL,
  conversions  integer NOT NULL,
  PRIMARY KEY (org, day, scenario, strategy)
);

CREATE FUNCTION recommendation_day(id text, ms bigint) RETURNS date LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7' THEN
    DATE '1970-01-01' + ((('x' || substr(id, 1, 8) || substr(id, 10, 4))::bit(48)::bigint + ms) / 86400000)::integer
  END
$$;
`;
