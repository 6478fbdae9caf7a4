import { AppError } from "../errors.js";

/** Where a parser delivers each record of an upload, with the file line it starts on (from 1). */
export interface RecordSink {
  record(value: unknown, line: number): void;
  /** A row that cannot be read at all (bad JSON, a broken CSV row): reported, and the upload goes on. */
  invalid(line: number, message: string): void;
}

/** A streaming parser: takes the body chunk by chunk and never holds more than one unfinished record. */
export interface RecordParser {
  write(chunk: Uint8Array): void;
  end(): void;
}

/** A record (one CSV row, one NDJSON line, one array element) may be at most this long, in characters. */
export const MAX_RECORD_CHARS = 1024 * 1024;

export function recordTooLong(line: number): AppError {
  return new AppError("payload_too_large", `the record starting on line ${line} is longer than ${MAX_RECORD_CHARS} characters`);
}

/** Lines a stretch of text spans: the count of its line feeds. */
export function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
