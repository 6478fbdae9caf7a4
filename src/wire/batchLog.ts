/**
 * CLUSTER=1: each committed ingest batch is logged in `batch_log` by the writer, inside the batch's own
 * transaction (docs/scaling.md); a notice naming the process follows the commit (src/cluster/batchNotifier.ts).
 * The row carries the transaction's id (its `xid` column defaults to pg_current_xact_id()), which is how the
 * other processes tell which logged batches a snapshot already holds (src/cluster/batchFeed.ts).
 */
export const BATCH_CHANNEL = "recsvc_batches";

/** The log row of a batch written in a transaction of statements (items, users, merges), before its COMMIT; the bytes go as a binary parameter. */
export const INSERT_LOG = "INSERT INTO batch_log (origin, packed, not_stored) VALUES ($1, $2, $3::integer[])";

/** The log row in binary COPY, after the events' COPY in the same simple query (one implicit transaction). */
export const COPY_LOG_BINARY = "COPY batch_log (origin, packed) FROM STDIN (FORMAT binary)";

const SIGNATURE = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);

/**
 * CopyData and CopyDone for COPY_LOG_BINARY's one row (origin, packed), as three buffers to write in turn:
 * the batch's bytes are sent as they are, not copied into a new buffer.
 */
export function logRowMessages(origin: string, packed: Uint8Array): [Buffer, Buffer, Buffer] {
  const uuid = Buffer.from(origin.replaceAll("-", ""), "hex");
  if (uuid.length !== 16) throw new Error(`not a process uuid: ${origin}`);
  const head = Buffer.alloc(1 + 4 + SIGNATURE.length + 2 + 4 + 16 + 4);
  let at = 0;
  head[at++] = 0x64; // 'd'
  at = head.writeInt32BE(4 + SIGNATURE.length + 2 + 4 + 16 + 4 + packed.length + 2, at);
  at += SIGNATURE.copy(head, at);
  at = head.writeInt16BE(2, at);
  at = head.writeInt32BE(16, at);
  at += uuid.copy(head, at);
  head.writeInt32BE(packed.length, at);
  const tail = Buffer.from([0xff, 0xff, 0x63, 0, 0, 0, 4]); // the trailer (-1 fields), then CopyDone 'c'
  return [head, Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength), tail];
}
