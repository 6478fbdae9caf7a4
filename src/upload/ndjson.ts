import { MAX_RECORD_CHARS, recordTooLong, type RecordParser, type RecordSink } from "./parser.js";

/** `application/x-ndjson`: one JSON value per line; blank lines are skipped. */
export class NdjsonParser implements RecordParser {
  private readonly decoder = new TextDecoder();
  private rest = "";
  private line = 1;

  constructor(private readonly sink: RecordSink) {}

  write(chunk: Uint8Array): void {
    this.drain(this.rest + this.decoder.decode(chunk, { stream: true }), false);
  }

  end(): void {
    this.drain(this.rest + this.decoder.decode(), true);
  }

  private drain(text: string, final: boolean): void {
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1 && !final) break;
      const end = nl === -1 ? text.length : nl;
      this.take(text.slice(start, end));
      this.line++;
      start = end + 1;
      if (nl === -1) break;
    }
    this.rest = start >= text.length ? "" : text.slice(start);
    if (this.rest.length > MAX_RECORD_CHARS) throw recordTooLong(this.line);
  }

  private take(raw: string): void {
    const text = raw.trim();
    if (text.length === 0) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.sink.invalid(this.line, `not valid JSON: ${(err as Error).message}`);
      return;
    }
    this.sink.record(value, this.line);
  }
}
