/**
 * CLUSTER=1: each process's place in `batch_log` (docs/scaling.md, Pruning). `snapshot` is that of its last
 * complete read (at start, the one taken before its load): a batch whose transaction it holds as committed has
 * been read or loaded, any other has not. The process refreshes the row every 30 s (`seen_at`); the prune keeps
 * what a process seen lately has not read, and adds to `missed` what it prunes all the same. UNLOGGED like
 * the log it describes: a crash empties both, and a process that finds its row gone says what it may lack.
 */
export const sql = `
CREATE UNLOGGED TABLE batch_log_readers (
  origin    uuid PRIMARY KEY,
  snapshot  pg_snapshot NOT NULL,
  seen_at   timestamptz NOT NULL DEFAULT now(),
  missed    bigint NOT NULL DEFAULT 0
);
`;
