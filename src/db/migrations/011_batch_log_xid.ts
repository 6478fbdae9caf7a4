/**
 * CLUSTER=1 logs a batch inside the transaction that writes it (docs/scaling.md): `xid` is that transaction's
 * id, by which a process tells the batches its load's snapshot holds from those it must apply. Reads follow
 * transaction ids, not process by process. What was logged before is dropped: the log is a channel, and
 * every process loads the tables when it starts. The bytes are stored uncompressed: the row is now written
 * inside the writer's transaction, and compressing a batch that is read once, within seconds, would only
 * lengthen that transaction.
 */
export const sql = `
TRUNCATE batch_log;
DROP INDEX batch_log_origin;
ALTER TABLE batch_log ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX batch_log_xid ON batch_log (xid);
ALTER TABLE batch_log ALTER COLUMN packed SET STORAGE EXTERNAL;
`;
