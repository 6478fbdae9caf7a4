import { appError } from "../errors.js";
import { MAX_RECORD_BYTES, overCap, recordTooLong, type RecordParser, type RecordSink } from "./parser.js";

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  LF = 0x0a,
  OPEN_SQUARE = 0x5b,
  CLOSE_SQUARE = 0x5d,
  OPEN_CURLY = 0x7b,
  CLOSE_CURLY = 0x7d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Inside a string only these matter: its end, an escape, and line feeds (for the line count). */
const STRING_STOP = /["\\\n]/g;

/**
 * `application/json`: one top-level array, split into its elements as the bytes arrive (each element is then
 * JSON.parse'd on its own), so the whole array is never in memory. The scan keeps its state across chunks and
 * reads each character once: an element's text from earlier chunks is kept in pieces, joined when it closes.
 */
export class JsonArrayParser implements RecordParser {
  private line = 1;
  private phase: "before" | "elements" | "after" | "ignored" = "before";
  private started = false;
  /**
   * The element being read: its text held from earlier chunks (`pieces`, `carried` units), the white space that
   * followed it there (counted, not held), its first line, and where it starts in this chunk.
   */
  private open = false;
  private pieces: string[] = [];
  private carried = 0;
  private spaces = 0;
  private elementLine = 0;
  private from = 0;
  /** The element's length up to its last character that is not white space: its record's length. */
  private solid = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly sink: RecordSink) {}

  write(text: string): void {
    let pos = 0;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) pos = 1;
    }
    this.from = 0;
    while (pos < text.length) {
      if (this.phase !== "elements") pos = this.outside(text, pos);
      else if (this.inString) pos = this.inside(text, pos);
      else pos = this.step(text, pos);
    }
    if (this.open) this.hold(text);
  }

  end(): void {
    if (this.phase === "before") throw appError("validation_error", "jsonArrayEmpty");
    if (this.phase === "elements") this.sink.invalid(this.open ? this.elementLine : this.line, "the JSON array ends without ']'");
  }

  /** One character between the elements' strings; returns where the scan goes on. */
  private step(text: string, pos: number): number {
    const c = text.charCodeAt(pos);
    if (c === LF) this.line++;
    if (this.depth === 0 && (c === COMMA || c === CLOSE_SQUARE)) {
      this.close(c, text);
      return pos + 1;
    }
    if (isSpace(c)) return pos + 1;
    if (!this.open) {
      this.open = true;
      this.elementLine = this.line;
      this.from = pos;
    }
    this.solid = this.carried + this.spaces + pos - this.from + 1;
    if (c === QUOTE) this.inString = true;
    else if (c === OPEN_CURLY || c === OPEN_SQUARE) this.depth++;
    else if (c === CLOSE_CURLY || c === CLOSE_SQUARE) this.depth--;
    return pos + 1;
  }

  /** Skips through a string to its closing quote, or to the chunk's end. */
  private inside(text: string, pos: number): number {
    let i = pos;
    if (this.escaped) {
      this.escaped = false;
      if (text.charCodeAt(i) === LF) this.line++;
      i++;
    }
    for (;;) {
      STRING_STOP.lastIndex = i;
      const m = STRING_STOP.exec(text);
      if (!m) return text.length;
      const at = m.index;
      const c = text.charCodeAt(at);
      if (c === LF) {
        this.line++;
        i = at + 1;
      } else if (c === BACKSLASH) {
        if (at + 1 >= text.length) {
          this.escaped = true;
          return text.length;
        }
        if (text.charCodeAt(at + 1) === LF) this.line++;
        i = at + 2;
      } else {
        this.inString = false;
        this.solid = this.carried + this.spaces + at - this.from + 1;
        return at + 1;
      }
    }
  }

  /**
   * At a chunk's end: keeps the open element's text of this chunk up to its last character that is not white
   * space; the white space after it is only counted (it is written back as spaces if more of the element
   * follows), so an element trailed by endless white space holds no memory for it.
   */
  private hold(text: string): void {
    if (this.inString) this.solid = this.carried + this.spaces + text.length - this.from;
    if (this.solid > MAX_RECORD_BYTES) throw recordTooLong(this.elementLine);
    const here = this.solid - this.carried - this.spaces;
    if (here <= 0) {
      this.spaces += text.length - this.from;
      return;
    }
    if (this.spaces > 0) this.pieces.push(" ".repeat(this.spaces));
    this.pieces.push(text.slice(this.from, this.from + here));
    this.carried += this.spaces + here;
    this.spaces = text.length - this.from - here;
  }

  private close(c: number, text: string): void {
    if (this.open) {
      if (this.solid > MAX_RECORD_BYTES) throw recordTooLong(this.elementLine);
      const here = this.solid - this.carried - this.spaces;
      let record = this.pieces.join("");
      if (here > 0) record += " ".repeat(this.spaces) + text.slice(this.from, this.from + here);
      const line = this.elementLine;
      this.open = false;
      this.pieces = [];
      this.carried = 0;
      this.spaces = 0;
      this.solid = 0;
      this.emit(record, line);
    } else if (c === COMMA) {
      this.sink.invalid(this.line, "an empty element in the array");
    }
    if (c === CLOSE_SQUARE) this.phase = "after";
  }

  /** Before the opening '[' and after the closing ']': only white space may stand there. */
  private outside(text: string, pos: number): number {
    if (this.phase === "ignored") return text.length;
    const c = text.charCodeAt(pos);
    if (isSpace(c)) {
      if (c === LF) this.line++;
      return pos + 1;
    }
    if (this.phase === "before" && c === OPEN_SQUARE) {
      this.phase = "elements";
      return pos + 1;
    }
    if (this.phase === "before") throw appError("validation_error", "jsonArrayExpected");
    this.sink.invalid(this.line, "unexpected text after the closing ']'");
    this.phase = "ignored"; // reported once; nothing after it is read
    return text.length;
  }

  private emit(record: string, line: number): void {
    if (overCap(record)) throw recordTooLong(line);
    let value: unknown;
    try {
      value = JSON.parse(record);
    } catch (err) {
      this.sink.invalid(line, `not valid JSON: ${(err as Error).message}`);
      return;
    }
    this.sink.record(value, line, record.length);
  }
}
