/** Encoding for PostgreSQL's COPY text format: tab-separated, `\N` for null, backslash escapes. */
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES = /[\\\t\n\r]/g;
const REPLACEMENT: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

export function copyField(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  const s = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPES, (c) => REPLACEMENT[c]) : s;
}

/** Rows to one COPY chunk; `prefix` lets a caller add a leading column (a sequence number). */
export function copyRows(rows: ReadonlyArray<ReadonlyArray<unknown>>, withSeq = false): string {
  const lines: string[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    let line = withSeq ? String(r) : "";
    for (let c = 0; c < row.length; c++) {
      if (withSeq || c > 0) line += "\t";
      line += copyField(row[c]);
    }
    lines[r] = line;
  }
  return lines.join("\n") + "\n";
}
