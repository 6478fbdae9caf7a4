import { appError } from "../errors.js";

/**
 * The columns of a CSV upload that are record fields; every other column is an attribute (CONTRACT 3), or for
 * events a key of `context`.
 */
export const CSV_FIELDS = {
  items: ["item_id", "item_type", "status", "created_at"],
  users: ["user_id", "status", "created_at"],
  events: ["user_id", "event_family", "event_name", "item_id", "previous_user_id", "recommendation_id", "event_id", "timestamp"],
} as const;
export type UploadKind = keyof typeof CSV_FIELDS;

/** Where a CSV row's other columns go. */
const EXTRAS: Record<UploadKind, "attributes" | "context"> = { items: "attributes", users: "attributes", events: "context" };

/** JSON number syntax, so that "007" or "1e" stay text and "12", "-3.5" and "1e3" become numbers. */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function cellValue(cell: string): string | number {
  if (NUMBER.test(cell)) {
    const n = Number(cell);
    if (Number.isFinite(n)) return n;
  }
  return cell;
}

/** Fields without which no row can be stored: a header lacking one is refused before any row is read. */
const REQUIRED: Record<UploadKind, readonly string[]> = {
  items: ["item_id", "item_type", "status"],
  users: ["user_id", "status", "created_at"],
  events: ["user_id", "event_family", "event_name"],
};

/** Refuses a header that no row could satisfy: a repeated or empty column name, or a missing required field. */
export function checkCsvHeader(kind: UploadKind, columns: string[]): void {
  const seen = new Set<string>();
  for (const c of columns) {
    if (c === "") throw appError("validation_error", "csvUnnamedColumn");
    if (c === "__proto__") throw appError("validation_error", "csvProtoColumn");
    if (seen.has(c)) throw appError("validation_error", "csvDuplicateColumn", { column: c });
    seen.add(c);
  }
  const missing = REQUIRED[kind].filter((f) => !seen.has(f));
  if (missing.length > 0) throw appError("validation_error", "csvMissingColumns", { columns: missing.join(", ") });
}

/**
 * CSV rows as the records the upsert schema checks: fields as text, other cells as attributes (numbers when
 * they read as one). Empty cells are absent, so a missing required field is reported as such. Which column is
 * a field is settled once, from the header, so a row costs one step per cell.
 */
export class CsvRecords {
  private readonly isField: boolean[];
  private readonly extras: "attributes" | "context";

  constructor(
    kind: UploadKind,
    private readonly columns: readonly string[],
  ) {
    const fields: readonly string[] = CSV_FIELDS[kind];
    this.isField = columns.map((c) => fields.includes(c));
    this.extras = EXTRAS[kind];
  }

  record(cells: readonly string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let attributes: Record<string, unknown> | undefined;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i];
      if (cell === "") continue;
      if (this.isField[i]) out[this.columns[i]] = cell;
      else (attributes ??= {})[this.columns[i]] = cellValue(cell);
    }
    if (attributes) out[this.extras] = attributes;
    return out;
  }
}
