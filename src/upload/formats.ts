import { appError } from "../errors.js";
import { checkCsvHeader, CsvRecords, type UploadKind } from "./csvRecords.js";
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
    throw appError("unsupported_media_type", "upload");
  }
  return format;
}

/** The parser of one upload; a CSV header of more than `maxColumns` columns is refused. */
export function parserFor(format: UploadFormat, kind: UploadKind, sink: RecordSink, maxColumns: number): RecordParser {
  if (format === "ndjson") return new NdjsonParser(sink);
  if (format === "json") return new JsonArrayParser(sink);
  let records: CsvRecords | undefined;
  return new CsvParser(
    {
      header: (columns) => {
        checkCsvHeader(kind, columns);
        records = new CsvRecords(kind, columns);
      },
      row: (cells, line, units) => sink.record(records!.record(cells), line, units),
      invalid: (line, message) => sink.invalid(line, message),
    },
    maxColumns,
  );
}
