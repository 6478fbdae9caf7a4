/** Organisations, dashboard accounts, keys, audit, settings. */
export const sql = `
CREATE TABLE organisations (
  id          uuid PRIMARY KEY,
  seq         integer GENERATED ALWAYS AS IDENTITY UNIQUE,
  name        text NOT NULL,
  rate_limit_max      integer,
  rate_limit_window_s integer,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE accounts (
  id              uuid PRIMARY KEY,
  org_id          uuid NOT NULL REFERENCES organisations(id),
  email           text NOT NULL UNIQUE,
  password_hash   text NOT NULL,
  role            text NOT NULL CHECK (role IN ('OWNER','ADMIN','DEVELOPER','MEMBER')),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_org ON accounts (org_id);

CREATE TABLE key_pairs (
  id                 uuid PRIMARY KEY,
  org_id             uuid NOT NULL REFERENCES organisations(id),
  publishable_key    text NOT NULL UNIQUE,
  publishable_digest bytea NOT NULL UNIQUE,
  secret_digest      bytea NOT NULL UNIQUE,
  secret_last4       text NOT NULL,
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active','revoked')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  revoked_at         timestamptz
);
CREATE INDEX key_pairs_org ON key_pairs (org_id, created_at DESC);

CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      uuid NOT NULL REFERENCES organisations(id),
  at          timestamptz NOT NULL DEFAULT now(),
  actor_id    uuid,
  actor_email text,
  action      text NOT NULL,
  target      text,
  ip          text
);
CREATE INDEX audit_log_org ON audit_log (org_id, id DESC);

CREATE TABLE settings (
  name  text PRIMARY KEY,
  value text NOT NULL
);
`;
