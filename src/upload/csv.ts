import { appError } from "../errors.js";
import { countLines, MAX_RECORD_BYTES, recordTooLong, type RecordParser } from "./parser.js";

const QUOTE = 0x22,
  COMMA = 0x2c,
  CR = 0x0d,
  LF = 0x0a;

/** Where a cell's reading stands; kept across chunks, so a row split between chunks is not read again. */
const FIELD_START = 0,
  UNQUOTED = 1,
  QUOTED = 2,
  /** A quote inside a quoted cell: the next character says whether it was "" or the cell's end. */
  QUOTE_SEEN = 3,
  /** Text after a closing quote: the row is broken; it ends at the next line feed. */
  JUNK = 4;

/** What reads each row of a CSV upload once the parser has split it. */
export interface CsvRows {
  /** The header's cells (line 1); throws to refuse it. */
  header(columns: string[]): void;
  /** A row with as many cells as the header. `units`: its length in the file (UTF-16 units). */
  row(cells: string[], line: number, units: number): void;
  invalid(line: number, message: string): void;
}

/**
 * `text/csv` (RFC 4180: quoted cells with "" escapes and line breaks, CRLF or LF). The first row is the header,
 * of at most `maxColumns` columns (refused as soon as its cells pass that, before the row ends); each later row
 * reaches `rows` with the line it starts on (the header is line 1). A row keeps at most one cell more than the
 * header (enough to say it has too many), and may be at most MAX_RECORD_BYTES long.
 */
export class CsvParser implements RecordParser {
  private line = 1;
  private header: string[] | undefined;
  private state = FIELD_START;
  private cells: string[] = [];
  private cellCount = 0;
  private cell = "";
  private firstCellQuoted = false;
  /** Line feeds inside the row's quoted cells. */
  private innerLines = 0;
  /** The row's length so far, in UTF-16 units, from earlier chunks. */
  private rowUnits = 0;
  /** UTF-8 bytes beyond one per unit in the cells not kept and the broken text after a closing quote. */
  private extraBytes = 0;
  private problem: string | undefined;
  /** The last chunk ended a row with CR: a LF opening the next chunk belongs to it. */
  private afterCR = false;
  private started = false;

  constructor(
    private readonly rows: CsvRows,
    private readonly maxColumns: number,
  ) {}

  write(text: string): void {
    const n = text.length;
    let i = 0;
    if (!this.started && n > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) i = 1;
    }
    if (this.afterCR && n > 0) {
      this.afterCR = false;
      if (text.charCodeAt(i) === LF) i++;
    }
    let rowStart = i;
    let cellStart = i;
    while (i < n) {
      const state = this.state;
      if (state === FIELD_START) {
        if (text.charCodeAt(i) === QUOTE) {
          if (this.cellCount === 0) this.firstCellQuoted = true;
          this.state = QUOTED;
          i++;
        } else {
          this.state = UNQUOTED;
          cellStart = i;
        }
        continue;
      }
      if (state === UNQUOTED) {
        let j = i;
        let c = 0;
        for (; j < n; j++) {
          c = text.charCodeAt(j);
          if (c === COMMA || c === LF || c === CR) break;
        }
        if (j === n) {
          this.cell += text.slice(cellStart, n);
          break;
        }
        this.cell += text.slice(cellStart, j);
        this.pushCell();
        if (c === COMMA) {
          this.state = FIELD_START;
          i = j + 1;
          continue;
        }
        i = this.endRow(text, rowStart, j);
        rowStart = i;
        continue;
      }
      if (state === QUOTED) {
        const q = text.indexOf('"', i);
        const to = q === -1 ? n : q;
        this.innerLines += countLines(text, i, to);
        this.cell += text.slice(i, to);
        i = to;
        if (q !== -1) {
          this.state = QUOTE_SEEN;
          i++;
        }
        continue;
      }
      if (state === QUOTE_SEEN) {
        const c = text.charCodeAt(i);
        if (c === QUOTE) {
          this.cell += '"';
          this.state = QUOTED;
          i++;
          continue;
        }
        this.pushCell();
        if (c === COMMA) {
          this.state = FIELD_START;
          i++;
          continue;
        }
        if (c === CR || c === LF) {
          i = this.endRow(text, rowStart, i);
          rowStart = i;
          continue;
        }
        this.problem = "unexpected text after a closing quote";
        this.state = JUNK;
        continue;
      }
      // JUNK
      const nl = text.indexOf("\n", i);
      const to = nl === -1 ? n : nl;
      this.extraBytes += Buffer.byteLength(text.slice(i, to)) - (to - i);
      if (nl === -1) break;
      i = this.endRow(text, rowStart, nl);
      rowStart = i;
    }
    this.rowUnits += n - rowStart;
    if (this.rowUnits > MAX_RECORD_BYTES) throw recordTooLong(this.line);
  }

  end(): void {
    const state = this.state;
    if (state === QUOTED) {
      this.rows.invalid(this.line, "a quoted cell is not closed before the end of the file");
    } else if (state === UNQUOTED || state === QUOTE_SEEN || state === JUNK || this.cellCount > 0) {
      if (state !== JUNK) this.pushCell();
      this.finishRow();
    }
    if (!this.header) throw appError("validation_error", "csvEmpty");
  }

  private pushCell(): void {
    const cell = this.cell;
    this.cell = "";
    this.cellCount++;
    const keep = this.header ? this.header.length + 1 : this.maxColumns;
    if (this.cellCount <= keep) {
      this.cells.push(cell);
      return;
    }
    if (!this.header) {
      throw appError("validation_error", "csvTooManyColumns", { max: this.maxColumns });
    }
    this.extraBytes += Buffer.byteLength(cell) - cell.length;
  }

  /** The row ends at `at` (a CR or LF there): it is delivered, and the scan goes on after its line break. */
  private endRow(text: string, rowStart: number, at: number): number {
    this.rowUnits += at - rowStart;
    this.finishRow();
    if (text.charCodeAt(at) === LF) return at + 1;
    if (at + 1 >= text.length) {
      this.afterCR = true;
      return at + 1;
    }
    return text.charCodeAt(at + 1) === LF ? at + 2 : at + 1;
  }

  private finishRow(): void {
    const line = this.line;
    this.line += 1 + this.innerLines;
    const cells = this.cells;
    const count = this.cellCount;
    const units = this.rowUnits;
    const problem = this.problem;
    const blank = cells.length === 1 && cells[0] === "" && !this.firstCellQuoted;
    if (units * 3 > MAX_RECORD_BYTES && this.rowBytes(units) > MAX_RECORD_BYTES) throw recordTooLong(line);
    this.cells = [];
    this.cellCount = 0;
    this.firstCellQuoted = false;
    this.innerLines = 0;
    this.rowUnits = 0;
    this.extraBytes = 0;
    this.problem = undefined;
    this.state = FIELD_START;
    if (problem) return this.rows.invalid(line, problem);
    if (blank) return;
    if (!this.header) {
      this.header = cells.map((c) => c.trim());
      this.rows.header(this.header);
      return;
    }
    if (count !== this.header.length) {
      return this.rows.invalid(line, `expected ${this.header.length} cells as in the header, found ${count}`);
    }
    this.rows.row(cells, line, units);
  }

  /**
   * The row's UTF-8 size: everything in it that is not a kept cell's text (commas, quotes, the second quote
   * of each "") is ASCII, one byte a unit; the rest is counted where it was read.
   */
  private rowBytes(units: number): number {
    if (units > MAX_RECORD_BYTES) return units;
    let bytes = units + this.extraBytes;
    for (const cell of this.cells) bytes += Buffer.byteLength(cell) - cell.length;
    return bytes;
  }
}
