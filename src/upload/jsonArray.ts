import { AppError } from "../errors.js";
import { MAX_RECORD_CHARS, recordTooLong, type RecordParser, type RecordSink } from "./parser.js";

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  OPEN_SQUARE = 0x5b,
  CLOSE_SQUARE = 0x5d,
  OPEN_CURLY = 0x7b,
  CLOSE_CURLY = 0x7d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * `application/json`: one top-level array, split into its elements as the bytes arrive (each element is then
 * JSON.parse'd on its own), so the whole array is never in memory. The scan keeps its state across chunks.
 */
export class JsonArrayParser implements RecordParser {
  private readonly decoder = new TextDecoder();
  private text = "";
  private pos = 0;
  private line = 1;
  private phase: "before" | "elements" | "after" = "before";
  private elementStart = -1;
  private elementLine = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly sink: RecordSink) {}

  write(chunk: Uint8Array): void {
    this.scan(this.decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.scan(this.decoder.decode());
    if (this.phase === "before") throw new AppError("validation_error", "the body is empty; expected a JSON array of records");
    if (this.phase === "elements") this.sink.invalid(this.elementStart >= 0 ? this.elementLine : this.line, "the JSON array ends without ']'");
  }

  private scan(more: string): void {
    const keepFrom = this.elementStart >= 0 ? this.elementStart : this.pos;
    this.text = this.text.slice(keepFrom) + more;
    this.pos -= keepFrom;
    if (this.elementStart >= 0) this.elementStart = 0;
    const t = this.text;
    for (; this.pos < t.length; this.pos++) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x0a) this.line++;
      if (this.phase === "elements") this.step(c);
      else this.outside(c);
    }
    if (this.elementStart >= 0 && this.pos - this.elementStart > MAX_RECORD_CHARS) throw recordTooLong(this.elementLine);
  }

  /** Before the opening '[' and after the closing ']': only white space may stand there. */
  private outside(c: number): void {
    if (isSpace(c) || (c === 0xfeff && this.pos === 0)) return;
    if (this.phase === "before" && c === OPEN_SQUARE) {
      this.phase = "elements";
      return;
    }
    if (this.phase === "before") throw new AppError("validation_error", "expected a JSON array of records ('[' first)");
    this.sink.invalid(this.line, "unexpected text after the closing ']'");
    this.phase = "after";
    this.pos = this.text.length; // report it once
  }

  private step(c: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) this.inString = false;
      return;
    }
    if (this.depth === 0 && (c === COMMA || c === CLOSE_SQUARE)) {
      this.closeElement(c);
      return;
    }
    if (this.elementStart < 0) {
      if (isSpace(c)) return;
      this.elementStart = this.pos;
      this.elementLine = this.line;
    }
    if (c === QUOTE) this.inString = true;
    else if (c === OPEN_CURLY || c === OPEN_SQUARE) this.depth++;
    else if (c === CLOSE_CURLY || c === CLOSE_SQUARE) this.depth--;
  }

  private closeElement(c: number): void {
    if (this.elementStart >= 0) {
      const raw = this.text.slice(this.elementStart, this.pos);
      this.elementStart = -1;
      this.emit(raw, this.elementLine);
    } else if (c === COMMA) {
      this.sink.invalid(this.line, "an empty element in the array");
    }
    if (c === CLOSE_SQUARE) this.phase = "after";
  }

  private emit(raw: string, line: number): void {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      this.sink.invalid(line, `not valid JSON: ${(err as Error).message}`);
      return;
    }
    this.sink.record(value, line);
  }
}
