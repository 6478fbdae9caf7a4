import type { z } from "zod";
import { AppError } from "../errors.js";

/** At most 10,000 records per request (CONTRACT 4). */
export const MAX_RECORDS = 10_000;
const MAX_REPORTED = 20;

export interface RecordKind<T> {
  /** `events`, used in messages as `events[3].field`. */
  plural: string;
  /** `event`, used for a single object: `event.field`. */
  singular: string;
  schema: z.ZodType<T>;
  /** An optional cheap check that may vouch for a record without the schema (never rejects). */
  vouch?: (record: unknown) => boolean;
}

/**
 * Validates a whole request: one object or an array of them. Any invalid record fails the request, and the
 * message names each failing index and field (first 20), so nothing of a bad request is stored.
 */
export function validateRecords<T>(body: unknown, kind: RecordKind<T>): T[] {
  const isArray = Array.isArray(body);
  const list: unknown[] = isArray ? body : [body];
  if (isArray && list.length === 0) throw new AppError("validation_error", `${kind.plural}: expected at least one record`);
  if (list.length > MAX_RECORDS) {
    throw new AppError("validation_error", `${kind.plural}: at most ${MAX_RECORDS} records per request, got ${list.length}`);
  }
  if (!isArray && (body === null || typeof body !== "object")) {
    throw new AppError("validation_error", `body: expected a ${kind.singular} object or an array of them`);
  }
  const out: T[] = new Array(list.length);
  const problems: string[] = [];
  let failed = 0;
  for (let i = 0; i < list.length; i++) {
    if (kind.vouch?.(list[i])) {
      out[i] = list[i] as T;
      continue;
    }
    const r = kind.schema.safeParse(list[i]);
    if (r.success) {
      out[i] = r.data;
      continue;
    }
    failed++;
    const at = isArray ? `${kind.plural}[${i}]` : kind.singular;
    for (const issue of r.error.issues) {
      if (problems.length < MAX_REPORTED) problems.push(`${describePath(at, issue.path)}: ${issueMessage(issue)}`);
    }
  }
  if (failed > 0) {
    const more = failed > 0 && problems.length >= MAX_REPORTED ? ` (${failed} invalid records in all)` : "";
    throw new AppError("validation_error", problems.join("; ") + more);
  }
  return out;
}

export function describePath(at: string, path: ReadonlyArray<PropertyKey>): string {
  let out = at;
  for (const p of path) out += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
  return out;
}

export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return `unknown field(s) ${issue.keys.map((k) => `'${k}'`).join(", ")}`;
  // A missing field has no input; zod's own "received undefined" message tells it from a failed refinement.
  if (issue.code === "invalid_type" && issue.input === undefined && issue.message.includes("received undefined")) return "is required";
  return issue.message;
}
