import { IDENTIFIER_CHARS, IDENTIFIER_MAX, MAX_FREEFORM_BYTES, Status, Timestamp } from "./schemas.js";

const STATUSES: ReadonlySet<unknown> = new Set(Status.options);
/** NUL and surrogates (paired or not): strings holding one go to the schema, which knows which are storable. */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const DOUBTFUL_CHARS = /[\u0000\ud800-\udfff]/;
/** JSON writes a character as at most 6 bytes (`\u001f`); a key, its value and the punctuation round it. */
const JSON_BYTES_PER_CHAR = 6;
const JSON_BYTES_PER_ENTRY = 8;

/** True when v is certainly a valid Identifier (schemas.ts). */
export function isIdentifier(v: unknown): boolean {
  return typeof v === "string" && v.length >= 1 && v.length <= IDENTIFIER_MAX && IDENTIFIER_CHARS.test(v);
}

/** True when v is certainly an array of 1 to `max` valid Identifiers: one loop, where a schema's array parses each element through its chain. */
export function isIdentifierList(v: unknown, max: number): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > max) return false;
  for (let k = 0; k < v.length; k++) if (!isIdentifier(v[k])) return false;
  return true;
}

let lastTimestamp = "";
/** Uploads and batches often repeat one timestamp: the last one the schema accepted is remembered. */
function isTimestamp(v: unknown): boolean {
  if (typeof v !== "string") return false;
  if (v === lastTimestamp) return true;
  if (!Timestamp.safeParse(v).success) return false;
  lastTimestamp = v;
  return true;
}

function isPlainString(s: string): boolean {
  return !DOUBTFUL_CHARS.test(s);
}

/** Flat attributes (text, finite numbers, booleans) certainly within 32 KiB of storable JSON. */
function isFlatAttributes(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
  let chars = 0;
  let entries = 0;
  for (const key in v) {
    // `__proto__` goes to the schema, which refuses it.
    if (!Object.hasOwn(v, key) || !isPlainString(key) || key === "__proto__") return false;
    const value = (v as Record<string, unknown>)[key];
    if (typeof value === "string") {
      if (!isPlainString(value)) return false;
      chars += value.length;
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return false;
      chars += 24;
    } else if (typeof value !== "boolean") {
      return false;
    }
    chars += key.length + 5;
    entries++;
  }
  return chars * JSON_BYTES_PER_CHAR + entries * JSON_BYTES_PER_ENTRY + 2 <= MAX_FREEFORM_BYTES;
}

type FieldCheck = (v: unknown) => boolean;

/** A vouch for one record shape: every key known and valid, every required key present. */
function plainRecordCheck(fields: Record<string, FieldCheck>, required: readonly string[]): (v: unknown) => boolean {
  return (v) => {
    if (typeof v !== "object" || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
    for (const key in v) {
      const check = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (!check || !Object.hasOwn(v, key) || !check((v as Record<string, unknown>)[key])) return false;
    }
    return required.every((k) => Object.hasOwn(v, k));
  };
}

/**
 * True only when an item is certainly valid under ItemSchema, with flat attributes (as every CSV row has). Zod
 * costs several µs per record on the front thread, a bulk upload's narrowest step. Like isPlainValidEvent it
 * never says "invalid": anything it is unsure of goes to the schema, the statement of the rules and the source
 * of every error message.
 */
export const isPlainValidItem = plainRecordCheck(
  { item_id: isIdentifier, item_type: isIdentifier, status: (v) => STATUSES.has(v), attributes: isFlatAttributes, created_at: isTimestamp },
  ["item_id", "item_type", "status"],
);

/** The same for users (UserSchema). */
export const isPlainValidUser = plainRecordCheck(
  { user_id: isIdentifier, status: (v) => STATUSES.has(v), attributes: isFlatAttributes, created_at: isTimestamp },
  ["user_id", "status", "created_at"],
);
