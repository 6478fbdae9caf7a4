import fc from "fast-check";
import { loneSurrogate } from "./identifiers.js";

/** CONTRACT 4: `attributes` and `context` hold at most 32 KiB of JSON (UTF-8 bytes of JSON.stringify). */
export const FREEFORM_MAX_BYTES = 32 * 1024;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const range = (min: number, max: number) => fc.integer({ min, max });
/** Any character jsonb can store: every code point but NUL and the surrogates (pairs come from astral ones). */
const storableChar = fc
  .oneof(range(0x01, 0x7f), range(0x80, 0x7ff), range(0x800, 0xd7ff), range(0xe000, 0xffff), range(0x10000, 0x10ffff))
  .map((cp) => String.fromCodePoint(cp));
export const storableText = (maxLength: number) => fc.string({ unit: storableChar, maxLength });

/** Numbers at the limits of a double and of JSON's round trip through PostgreSQL's numeric. */
export const LIMIT_NUMBERS = [
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  5e-324,
  -5e-324,
  2.2250738585072014e-308,
  -0,
  0,
  0.1,
  1 / 3,
  123456789.12345679,
  1e21,
  1e-7,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
];
export const jsonNumber = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...LIMIT_NUMBERS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Keys include ones that are special to JavaScript objects (`__proto__`, refused, is among the invalid ones). */
const key = fc
  .oneof(
    { weight: 4, arbitrary: storableText(12) },
    { weight: 1, arbitrary: fc.constantFrom("constructor", "toString", "hasOwnProperty", "", "price", "a.b", "$ref", "0", "-1") },
  )
  .filter((k) => k !== "__proto__");

const leaf: fc.Arbitrary<Json> = fc.oneof(fc.constant(null), fc.boolean(), jsonNumber, storableText(40));

/** A JSON object built from entries (Object.fromEntries keeps `__proto__` as an own key, as JSON.parse does). */
const objectOf = (value: fc.Arbitrary<Json>, maxKeys: number): fc.Arbitrary<JsonObject> =>
  fc.array(fc.tuple(key, value), { maxLength: maxKeys }).map((entries) => Object.fromEntries(entries) as JsonObject);

const { value } = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof({ depthSize: "small", maxDepth: 3 }, leaf, fc.array(tie("value"), { maxLength: 4 }), objectOf(tie("value"), 4)),
}));

export const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/** Free-form objects of nested values, well under the limit (the rare large draw is dropped). */
export const smallFreeForm: fc.Arbitrary<JsonObject> = objectOf(value, 6).filter((o) => jsonBytes(o) <= 8192);

/** JSON bytes per character of `c` inside a JSON string: 1..4 for UTF-8, 2 for \" \\ \n, 6 for \u0001. */
const padChar = fc.constantFrom("a", "é", "中", "\u{1f600}", "\n", '"', "\\", "\u0001", "\u2028", "\uffff");

/**
 * `base` plus one more key whose text brings the JSON to exactly `target` bytes (`base` itself when it is
 * already larger). The padding repeats `c`, topped up with ASCII to land on the byte.
 */
export function paddedTo(base: JsonObject, padKey: string, c: string, target: number): JsonObject {
  const empty = { ...base, [padKey]: "" };
  const need = target - jsonBytes(empty);
  if (need < 0) return base;
  const width = jsonBytes(c) - 2;
  const text = c.repeat(Math.floor(need / width)) + "a".repeat(need % width);
  return { ...base, [padKey]: text };
}

/** Objects whose JSON is within `below` bytes under the limit, up to exactly 32,768 bytes. */
export const nearLimitFreeForm = (below = 48): fc.Arbitrary<JsonObject> =>
  fc
    .record({ base: smallFreeForm, padKey: storableText(6), c: padChar, under: fc.integer({ min: 0, max: below }) })
    .map(({ base, padKey, c, under }) => paddedTo(base, padKey, c, FREEFORM_MAX_BYTES - under));

/** Objects just over the limit (32,769 bytes and a little more), and one well over. */
export const overLimitFreeForm: fc.Arbitrary<JsonObject> = fc
  .record({ base: smallFreeForm, padKey: storableText(6), c: padChar, over: fc.oneof(fc.integer({ min: 1, max: 48 }), fc.constant(40_000)) })
  .map(({ base, padKey, c, over }) => paddedTo(base, padKey, c, FREEFORM_MAX_BYTES + over))
  .filter((o) => jsonBytes(o) > FREEFORM_MAX_BYTES);

/** Valid free-form objects: mostly small, a few right at the limit. */
export const freeForm: fc.Arbitrary<JsonObject> = fc.oneof({ weight: 12, arbitrary: smallFreeForm }, { weight: 1, arbitrary: nearLimitFreeForm() });

/** Sets `v` at a path into `obj` chosen by `depth` (nested objects made as needed); returns a copy. */
function nestAt(obj: JsonObject, depth: number, k: string, v: Json): JsonObject {
  let inner: JsonObject = { [k]: v };
  for (let d = 0; d < depth; d++) inner = { nest: inner };
  return { ...obj, "bad-value": inner };
}

/** Free-form objects jsonb cannot store: NUL or an unpaired surrogate in a value or a key, at some depth. */
export const unstorableFreeForm: fc.Arbitrary<{ value: JsonObject; why: string }> = fc
  .record({
    base: smallFreeForm,
    bad: fc.oneof(fc.constant("\u0000"), loneSurrogate),
    inKey: fc.boolean(),
    inArray: fc.boolean(),
    depth: fc.integer({ min: 0, max: 3 }),
    around: storableText(6),
  })
  .map(({ base, bad, inKey, inArray, depth, around }) => {
    const text = around + bad + around;
    const why = `${bad === "\u0000" ? "NUL" : "unpaired surrogate"} in a ${inKey ? "key" : "value"} at depth ${depth}`;
    if (inKey) return { value: nestAt(base, depth, text, 1), why };
    return { value: nestAt(base, depth, "v", inArray ? [1, text] : text), why };
  });

/** Free-form objects holding a `__proto__` key (refused: it could not be kept as sent), at some depth, or nested too deep. */
export const refusedShapeFreeForm: fc.Arbitrary<{ value: JsonObject; why: string }> = fc.oneof(
  fc
    .record({ base: smallFreeForm, depth: fc.integer({ min: 0, max: 3 }) })
    // JSON.parse, as a request body is read: `__proto__` an own key.
    .map(({ base, depth }) => ({
      value: JSON.parse(JSON.stringify(nestAt(base, depth, "PROTO", 1)).replace('"PROTO"', '"__proto__"')) as JsonObject,
      why: `__proto__ key at depth ${depth}`,
    })),
  fc.integer({ min: 100, max: 400 }).map((levels) => {
    let inner: JsonObject = { leaf: 1 };
    for (let d = 0; d < levels; d++) inner = { n: inner };
    return { value: inner, why: `nested ${levels + 1} levels deep` };
  }),
);
