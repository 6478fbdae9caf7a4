import type { z } from "zod";
import { appError, describeIssues, MAX_REPORTED_ISSUES, validationError } from "../errors.js";

/** At most 10,000 records per request (CONTRACT 4). */
export const MAX_RECORDS = 10_000;

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
  if (isArray && list.length === 0) throw appError("validation_error", "noRecords", { records: kind.plural });
  if (list.length > MAX_RECORDS) {
    throw appError("validation_error", "tooManyRecords", { records: kind.plural, max: MAX_RECORDS, count: list.length });
  }
  if (!isArray && (body === null || typeof body !== "object")) {
    throw appError("validation_error", "notRecords", { record: kind.singular });
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
    if (problems.length < MAX_REPORTED_ISSUES) problems.push(...describeIssues(r.error.issues.slice(0, MAX_REPORTED_ISSUES - problems.length), at));
  }
  if (failed > 0) throw validationError(problems, failed);
  return out;
}
