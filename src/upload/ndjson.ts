import { MAX_RECORD_BYTES, overCap, recordTooLong, type RecordParser, type RecordSink } from "./parser.js";

/** `application/x-ndjson`: one JSON value per line (LF or CRLF); blank lines are skipped. */
export class NdjsonParser implements RecordParser {
  /** The unfinished line's text from earlier chunks, and its length. */
  private pieces: string[] = [];
  private pending = 0;
  private line = 1;

  constructor(private readonly sink: RecordSink) {}

  write(text: string): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) break;
      const tail = text.slice(start, nl);
      this.take(this.pieces.length === 0 ? tail : this.pieces.join("") + tail);
      this.pieces = [];
      this.pending = 0;
      start = nl + 1;
    }
    if (start === text.length) return;
    this.pieces.push(text.slice(start));
    this.pending += text.length - start;
    // One more unit than the cap may be the CR of a CRLF, which is not the record's.
    if (this.pending > MAX_RECORD_BYTES + 1) throw recordTooLong(this.line);
  }

  end(): void {
    if (this.pieces.length > 0) this.take(this.pieces.join(""));
    this.pieces = [];
  }

  private take(raw: string): void {
    const line = this.line++;
    const record = raw.charCodeAt(raw.length - 1) === 0x0d ? raw.slice(0, -1) : raw;
    if (overCap(record)) throw recordTooLong(line);
    const text = record.trim();
    if (text.length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.sink.invalid(line, `not valid JSON: ${(err as Error).message}`);
      return;
    }
    this.sink.record(value, line, record.length);
  }
}
