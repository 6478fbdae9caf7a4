import { AppError } from "../errors.js";
import { checkCsvHeader, csvRecord, type UploadKind } from "./csvRecords.js";
import { CsvParser } from "./csv.js";
import { JsonArrayParser } from "./jsonArray.js";
import { NdjsonParser } from "./ndjson.js";
import type { RecordParser, RecordSink } from "./parser.js";

export type UploadFormat = "csv" | "ndjson" | "json";

const FORMATS: Record<string, UploadFormat> = {
  "text/csv": "csv",
  "application/x-ndjson": "ndjson",
  "application/jsonl": "ndjson",
  "application/json": "json",
};

/** The upload's format from its Content-Type (parameters such as charset are ignored); 415 otherwise. */
export function uploadFormat(contentType: string | undefined): UploadFormat {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const format = FORMATS[type];
  if (!format) {
    throw new AppError("unsupported_media_type", "upload body must be text/csv, application/x-ndjson or application/json (an array of records)");
  }
  return format;
}

export function parserFor(format: UploadFormat, kind: UploadKind, sink: RecordSink): RecordParser {
  if (format === "ndjson") return new NdjsonParser(sink);
  if (format === "json") return new JsonArrayParser(sink);
  const rows: RecordSink = {
    record: (row, line) => sink.record(csvRecord(kind, row as Record<string, string>), line),
    invalid: (line, message) => sink.invalid(line, message),
  };
  return new CsvParser(rows, (columns) => checkCsvHeader(kind, columns));
}
