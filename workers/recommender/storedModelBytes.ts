import type pg from "pg";
import copyStreams from "pg-copy-streams";

/** COPY's binary format: this signature, a flags word and a header extension, then each row's fields, then −1. */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/**
 * An organisation's stored model: its version and bytes, read by `COPY … (FORMAT binary)`, in chunks that leave
 * the event loop free, as raw bytes. node-postgres reads query results as text only, where a bytea arrives as hex
 * (twice its size) and is decoded in one go on this thread (tens of ms for a large organisation's model).
 */
export async function storedModelBytes(client: pg.Client, org: number): Promise<{ version: number; bytes: Uint8Array } | undefined> {
  if (!Number.isSafeInteger(org)) throw new Error(`not an organisation: ${org}`);
  const stream = client.query(copyStreams.to(`COPY (SELECT version, model FROM trained_model WHERE org = ${org}) TO STDOUT (FORMAT binary)`));
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const all = Buffer.concat(chunks);
  if (!all.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error("a COPY in binary format began without its signature");
  let at = SIGNATURE.length + 4;
  at += 4 + all.readUInt32BE(at);
  const fields = all.readInt16BE(at);
  if (fields === -1) return undefined;
  if (fields !== 2) throw new Error(`a stored model's row had ${fields} fields, not 2`);
  at += 2;
  const versionLength = all.readInt32BE(at);
  if (versionLength !== 8) throw new Error(`a stored model's version had ${versionLength} bytes, not 8`);
  const version = Number(all.readBigInt64BE(at + 4));
  at += 12;
  const length = all.readInt32BE(at);
  if (length < 0 || at + 4 + length > all.length) throw new Error("a stored model's bytes ran past the end of the COPY");
  // A copy of its own: the bytes are moved to the translating thread, and `all` may share a pooled buffer.
  return { version, bytes: new Uint8Array(all.subarray(at + 4, at + 4 + length)) };
}
