import { type AppError, appError } from "../errors.js";

/** Where a parser delivers each record of an upload, with the file line it starts on (from 1). */
export interface RecordSink {
  /** `bytes`: the record's size in the file (its share of the body), which bounds the chunks it is sent in. */
  record(value: unknown, line: number, bytes: number): void;
  /** A row that cannot be read at all (bad JSON, a broken CSV row): reported, and the upload goes on. */
  invalid(line: number, message: string): void;
}

/**
 * A streaming parser: takes the body chunk by chunk (text already decoded), never holds more than one
 * unfinished record, and looks at each character once (a record split across chunks is not read again).
 */
export interface RecordParser {
  write(text: string): void;
  end(): void;
}

/**
 * A record (a CSV row or an NDJSON line without its line break, a JSON array element without the white space
 * round it) may be at most this many bytes of UTF-8. Valid records are far smaller (attributes hold at most
 * 32 KiB of JSON); the cap bounds what one record costs to hold and parse.
 */
export const MAX_RECORD_BYTES = 1024 * 1024;

export function recordTooLong(line: number): AppError {
  return appError("payload_too_large", "uploadRecord", { line, max: MAX_RECORD_BYTES });
}

/**
 * Whether a record's text is over the cap in UTF-8. A UTF-16 unit takes 1 to 3 bytes (a surrogate pair 4 for
 * its two), so the bytes are counted only when the length leaves the answer open. Invalid UTF-8 in the file
 * reached the text as U+FFFD and counts as its 3 bytes.
 */
export function overCap(text: string): boolean {
  if (text.length * 3 <= MAX_RECORD_BYTES) return false;
  return text.length > MAX_RECORD_BYTES || Buffer.byteLength(text) > MAX_RECORD_BYTES;
}

/** Lines a stretch of text spans: the count of its line feeds. */
export function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
