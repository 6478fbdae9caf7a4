import type pg from "pg";
import { readCopyBinary } from "./copyBinaryReader.js";

/**
 * An organisation's stored model: its version and bytes, read by `COPY … (FORMAT binary)` (copyBinaryReader.ts)
 * in chunks that leave the event loop free, each field copied once into an array of its own (the bytes are moved
 * to the translating thread).
 */
export async function storedModelBytes(client: pg.Client, org: number): Promise<{ version: number; bytes: Uint8Array } | undefined> {
  if (!Number.isSafeInteger(org)) throw new Error(`not an organisation: ${org}`);
  const fields: Uint8Array[] = [];
  let at = 0;
  const rows = await readCopyBinary(client, `SELECT version, model FROM trained_model WHERE org = ${org}`, {
    field: (row, field, length) => {
      if (row > 0 || field > 1 || length < 0) throw new Error(`a stored model's row ${row} field ${field} of ${length} bytes`);
      fields.push(new Uint8Array(length));
      at = 0;
    },
    bytes: (piece) => {
      fields[fields.length - 1]!.set(piece, at);
      at += piece.length;
    },
  });
  if (rows === 0) return undefined;
  const [version, bytes] = fields;
  if (fields.length !== 2 || version!.length !== 8)
    throw new Error(`a stored model's row had ${fields.length} fields and a version of ${version?.length} bytes`);
  return { version: Number(Buffer.from(version!.buffer, version!.byteOffset, 8).readBigInt64BE(0)), bytes: bytes! };
}
