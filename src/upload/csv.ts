import { AppError } from "../errors.js";
import { countLines, MAX_RECORD_CHARS, recordTooLong, type RecordParser, type RecordSink } from "./parser.js";

const QUOTE = 0x22,
  COMMA = 0x2c,
  CR = 0x0d,
  LF = 0x0a;

/** One CSV row as read: its cells, where it ends in the text, and the line feeds inside quoted cells. */
interface Row {
  cells: string[];
  end: number;
  innerLines: number;
  problem?: string;
}

/**
 * `text/csv` (RFC 4180: quoted cells with "" escapes and line breaks, CRLF or LF). The first row is the header;
 * each later row reaches the sink as an object keyed by it, with the line it starts on (the header is line 1).
 */
export class CsvParser implements RecordParser {
  private readonly decoder = new TextDecoder();
  private rest = "";
  private line = 1;
  private header: string[] | undefined;

  constructor(
    private readonly sink: RecordSink,
    private readonly checkHeader: (columns: string[]) => void,
  ) {}

  write(chunk: Uint8Array): void {
    this.drain(this.rest + this.decoder.decode(chunk, { stream: true }), false);
  }

  end(): void {
    this.drain(this.rest + this.decoder.decode(), true);
    if (!this.header) throw new AppError("validation_error", "the file is empty; expected a header row first");
  }

  private drain(text: string, final: boolean): void {
    let pos = this.line === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    while (pos < text.length) {
      const row = readRow(text, pos, final);
      if (!row) break;
      this.take(row, text, pos);
      this.line += 1 + row.innerLines;
      pos = row.end;
    }
    this.rest = text.slice(pos);
    if (this.rest.length > MAX_RECORD_CHARS) throw recordTooLong(this.line);
  }

  private take(row: Row, text: string, start: number): void {
    if (row.problem) {
      this.sink.invalid(this.line, row.problem);
      return;
    }
    if (row.cells.length === 1 && row.cells[0] === "" && text.charCodeAt(start) !== QUOTE) return; // a blank line
    if (!this.header) {
      this.header = row.cells.map((c) => c.trim());
      this.checkHeader(this.header);
      return;
    }
    if (row.cells.length !== this.header.length) {
      this.sink.invalid(this.line, `expected ${this.header.length} cells as in the header, found ${row.cells.length}`);
      return;
    }
    const value: Record<string, string> = {};
    for (let i = 0; i < row.cells.length; i++) value[this.header[i]] = row.cells[i];
    this.sink.record(value, this.line);
  }
}

/** Reads the row starting at `pos`; undefined when the text ends inside it and more is to come. */
function readRow(text: string, pos: number, final: boolean): Row | undefined {
  const cells: string[] = [];
  let innerLines = 0;
  let i = pos;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      const cell = readQuoted(text, i + 1, final);
      if (!cell) {
        if (!final) return undefined;
        return { cells, end: text.length, innerLines: 0, problem: "a quoted cell is not closed before the end of the file" };
      }
      cells.push(cell.value);
      innerLines += cell.lines;
      i = cell.end;
      const c = text.charCodeAt(i);
      if (i < text.length && c !== COMMA && c !== CR && c !== LF) {
        const lineEnd = endOfLine(text, i, final);
        if (lineEnd === undefined) return undefined;
        return { cells, end: lineEnd, innerLines, problem: "unexpected text after a closing quote" };
      }
    } else {
      let j = i;
      for (; j < text.length; j++) {
        const c = text.charCodeAt(j);
        if (c === COMMA || c === LF || c === CR) break;
      }
      cells.push(text.slice(i, j));
      i = j;
    }
    if (i >= text.length) return final ? { cells, end: text.length, innerLines } : undefined;
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      i++;
      continue;
    }
    if (c === CR) {
      if (i + 1 >= text.length && !final) return undefined;
      return { cells, end: text.charCodeAt(i + 1) === LF ? i + 2 : i + 1, innerLines };
    }
    return { cells, end: i + 1, innerLines };
  }
}

/** A quoted cell's value from just after its opening quote; undefined when the closing quote has not arrived. */
function readQuoted(text: string, from: number, final: boolean): { value: string; end: number; lines: number } | undefined {
  let value = "";
  let lines = 0;
  let i = from;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) return undefined;
    lines += countLines(text, i, q);
    value += text.slice(i, q);
    if (text.charCodeAt(q + 1) === QUOTE) {
      value += '"';
      i = q + 2;
      continue;
    }
    if (q + 1 >= text.length && !final) return undefined; // "" may be split across chunks; wait for the next one
    return { value, end: q + 1, lines };
  }
}

function endOfLine(text: string, from: number, final: boolean): number | undefined {
  const nl = text.indexOf("\n", from);
  if (nl !== -1) return nl + 1;
  return final ? text.length : undefined;
}
