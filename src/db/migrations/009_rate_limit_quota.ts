/**
 * Rate-limit quota shared by the processes on this database (CLUSTER=1): per key and window, how many requests
 * have been leased to processes so far. Keyed by organisation first; the per-IP sign-in limit uses org 0 and
 * the address as scope (the organisation's own limit has scope ''). Windows are aligned to the epoch, so
 * window_start (epoch seconds, a multiple of window_s) means the same window in every process.
 * UNLOGGED: a count, not a record; it costs no WAL, and a PostgreSQL crash only resets the current windows.
 */
export const sql = `
CREATE UNLOGGED TABLE rate_limit_quota (
  org           integer NOT NULL,
  scope         text NOT NULL,
  window_s      integer NOT NULL,
  window_start  bigint NOT NULL,
  used          integer NOT NULL,
  granted       integer NOT NULL,
  PRIMARY KEY (org, scope, window_s, window_start)
);
`;
