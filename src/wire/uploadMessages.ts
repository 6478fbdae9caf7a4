/**
 * Between the front thread and the upload parse thread (src/upload/parseThread.ts), by structured clone: the
 * body's chunks go in (their memory moved), and validated rows come out packed as a BatchPayload (batchPack.ts),
 * so that the front never parses or validates an upload's records itself.
 */
export type ToParser =
  | {
      t: "open";
      id: number;
      format: "csv" | "ndjson" | "json";
      kind: "items" | "users" | "events";
      /** The organisation's seq, the first value of every row. */
      org: number;
      maxColumns: number;
    }
  | { t: "chunk"; id: number; bytes: Uint8Array }
  | { t: "end"; id: number }
  /** The upload stopped on the front (client gone, rows refused): forget it. */
  | { t: "drop"; id: number };

export type FromParser =
  /** A chunk is parsed: its bytes leave the upload's backlog. */
  | { t: "took"; id: number; bytes: number }
  /**
   * Valid rows, packed by packBatch (only `items`, only `users` or only `events`), with each row's file line and (items) the
   * bytes of its attributes as the quota counts them (src/wire/attributeBytes.ts), so that the front neither
   * re-serialises rows for the quota nor loses the line of a row it refuses.
   */
  | { t: "rows"; id: number; packed: Uint8Array<ArrayBuffer>; count: number; lines: Int32Array<ArrayBuffer>; bytes: Float64Array<ArrayBuffer> }
  | { t: "done"; id: number; rejected: number; errors: Array<{ line: number; message: string }> }
  /** The upload cannot go on (an ErrorCode and its message, e.g. a refused header or an over-long record). */
  | { t: "failed"; id: number; code: string; message: string };

/** `workerData` of the upload parse thread. */
export interface ParserThreadData {
  logLevel: "debug" | "info" | "warn" | "error";
}
