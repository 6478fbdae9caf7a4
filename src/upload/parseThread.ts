import { parentPort, workerData } from "node:worker_threads";
import { appError, isAppError } from "../errors.js";
import { log, setLogLevel } from "../wire/log.js";
import type { FromParser, ParserThreadData, ToParser } from "../wire/uploadMessages.js";
import { parserFor } from "./formats.js";
import type { RecordParser } from "./parser.js";
import { RowChunks } from "./rowChunks.js";

/**
 * The upload parse thread: reads the uploads' bodies (CSV, NDJSON, JSON arrays) and validates their records
 * off the front thread, where one record of 1 MiB (JSON.parse, the schema) could cost hundreds of
 * milliseconds. Several uploads share it; each is read in the order its chunks arrive.
 */
interface Upload {
  decoder: TextDecoder;
  parser: RecordParser;
  rows: RowChunks;
}

setLogLevel((workerData as ParserThreadData).logLevel);
const port = parentPort!;
const uploads = new Map<number, Upload>();
const send = (m: FromParser, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

port.on("message", (m: ToParser) => {
  if (m.t === "open") {
    const rows = new RowChunks(m.kind, m.org, (packed, count, lines, bytes) =>
      send({ t: "rows", id: m.id, packed, count, lines, bytes }, [packed.buffer, lines.buffer, bytes.buffer]),
    );
    uploads.set(m.id, { decoder: new TextDecoder(), parser: parserFor(m.format, m.kind, rows, m.maxColumns), rows });
    return;
  }
  const u = uploads.get(m.id);
  if (!u) return; // dropped, or failed already: what was still on its way is ignored
  if (m.t === "drop") {
    uploads.delete(m.id);
    return;
  }
  try {
    if (m.t === "chunk") {
      u.parser.write(u.decoder.decode(m.bytes, { stream: true }));
      send({ t: "took", id: m.id, bytes: m.bytes.byteLength });
      return;
    }
    const rest = u.decoder.decode();
    if (rest.length > 0) u.parser.write(rest);
    u.parser.end();
    u.rows.flush();
    uploads.delete(m.id);
    send({ t: "done", id: m.id, rejected: u.rows.rejected, errors: u.rows.errors });
  } catch (err) {
    uploads.delete(m.id);
    if (isAppError(err)) {
      send({ t: "failed", id: m.id, code: err.code, message: err.message });
      return;
    }
    log.error("an upload could not be parsed", { error: (err as Error)?.stack ?? String(err) });
    send({ t: "failed", id: m.id, code: "internal_error", message: appError("internal_error", "uploadUnreadable").message });
  }
});
