/**
 * Committed batches, announced to the other processes on this database (CLUSTER=1) by NOTIFY with their id.
 * A channel, not a record (the tables are that): UNLOGGED, so it costs no WAL, and a PostgreSQL crash empties it.
 */
export const sql = `
CREATE UNLOGGED TABLE batch_log (
  id          bigserial PRIMARY KEY,
  origin      uuid NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  packed      bytea NOT NULL,
  not_stored  integer[]
);
CREATE INDEX batch_log_origin ON batch_log (origin, id);
CREATE INDEX batch_log_at ON batch_log (at);
`;
