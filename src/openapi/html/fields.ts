import type { JsonSchema } from "../jsonSchema.js";

export interface Field {
  name: string;
  type: string;
  required: boolean;
  notes: string;
}

/** Follows a `#/components/schemas/…` reference within the document. */
export function resolve(schema: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema {
  const target = schema.$ref;
  if (typeof target !== "string") return schema;
  const found = schemas[target.replace("#/components/schemas/", "")];
  if (!found) throw new Error(`unresolved reference ${target}`);
  return resolve(found, schemas);
}

/** The record a body is made of: the schema itself, or the items of its array form. */
export function recordOf(schema: JsonSchema, schemas: Record<string, JsonSchema>): JsonSchema {
  const s = resolve(schema, schemas);
  if (Array.isArray(s.anyOf)) return resolve(s.anyOf[0] as JsonSchema, schemas);
  if (s.type === "array" && s.items) return resolve(s.items as JsonSchema, schemas);
  return s;
}

const MAX_DEPTH = 3;

/** An object's fields, nested objects and arrays of objects flattened as `a.b` and `a[].b`. */
export function fieldsOf(schema: JsonSchema, schemas: Record<string, JsonSchema>, prefix = "", depth = 0): Field[] {
  const s = resolve(schema, schemas);
  const properties = s.properties as Record<string, JsonSchema> | undefined;
  if (!properties || depth >= MAX_DEPTH) return [];
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries(properties).flatMap(([key, raw]) => {
    const property = resolve(raw, schemas);
    const name = `${prefix}${key}`;
    const own: Field = { name, type: typeOf(property, schemas), required: required.has(key), notes: notesOf(property) };
    const items = property.type === "array" && property.items ? resolve(property.items as JsonSchema, schemas) : undefined;
    const nested = items ? fieldsOf(items, schemas, `${name}[].`, depth + 1) : fieldsOf(property, schemas, `${name}.`, depth + 1);
    return [own, ...nested];
  });
}

export function typeOf(s: JsonSchema, schemas: Record<string, JsonSchema>): string {
  if ("const" in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return s.anyOf.map((v) => typeOf(resolve(v as JsonSchema, schemas), schemas)).join(" | ");
  const type = Array.isArray(s.type) ? s.type.join(" | ") : typeof s.type === "string" ? s.type : "any";
  if (type === "array" && s.items) return `array of ${typeOf(resolve(s.items as JsonSchema, schemas), schemas)}`;
  return typeof s.format === "string" ? `${type} (${s.format})` : type;
}

/** Each bound's wording; `{s}` takes the plural's "s" unless the bound is 1. */
const BOUNDS: Array<[string, string]> = [
  ["minLength", "at least {} character{s}"],
  ["maxLength", "at most {} character{s}"],
  ["minimum", "≥ {}"],
  ["exclusiveMinimum", "> {}"],
  ["maximum", "≤ {}"],
  ["minItems", "at least {} item{s}"],
  ["maxItems", "at most {} item{s}"],
  ["maxProperties", "at most {} key{s}"],
  ["default", "default {}"],
];

/** The description and the bounds of a value (huge implementation bounds such as 2^53 − 1 left out). */
function notesOf(s: JsonSchema): string {
  const bounds = BOUNDS.filter(([k]) => k in s && !(typeof s[k] === "number" && (s[k] as number) > 1e12)).map(([k, text]) =>
    text.replace("{}", JSON.stringify(s[k])).replace("{s}", s[k] === 1 ? "" : "s"),
  );
  const described = typeof s.description === "string" ? s.description : "";
  if (bounds.length === 0) return described;
  const list = bounds.join(", ");
  // After a sentence the bounds start one of their own.
  return described === "" ? list : `${described}${/[.!?]$/.test(described) ? "" : "."} ${list[0].toUpperCase()}${list.slice(1)}.`;
}
