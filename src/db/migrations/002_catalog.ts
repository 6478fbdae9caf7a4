/**
 * Items, users, events, identity aliases. Big tables key on the organisation's integer seq (4 bytes) rather
 * than its uuid; event ids are stored as uuid (16 bytes) so the dedup index stays small.
 */
export const sql = `
CREATE TABLE items (
  org         integer NOT NULL,
  item_id     text NOT NULL,
  item_type   text NOT NULL,
  status      text NOT NULL,
  attributes  jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org, item_id)
);

CREATE TABLE users (
  org         integer NOT NULL,
  user_id     text NOT NULL,
  status      text NOT NULL,
  attributes  jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org, user_id)
);

-- Every status an item or user moved into, so hiding and restoring stays visible after the fact.
CREATE TABLE status_changes (
  org         integer NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('item','user')),
  id          text NOT NULL,
  old_status  text,
  new_status  text NOT NULL,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX status_changes_org ON status_changes (org, kind, id);

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
  received_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org, event_id)
);
CREATE INDEX events_occurred_brin ON events USING brin (occurred_at);

CREATE TABLE identity_aliases (
  org               integer NOT NULL,
  previous_user_id  text NOT NULL,
  user_id           text NOT NULL,
  at                timestamptz NOT NULL,
  PRIMARY KEY (org, previous_user_id)
);
`;
