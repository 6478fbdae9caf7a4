import fc from "fast-check";

/**
 * Identifiers as CONTRACT 4 defines them: 1 to 256 UTF-16 code units, no control character (C0, DEL, C1), no
 * unpaired surrogate. Everything else is fair: every plane, noncharacters, format characters, quotes.
 */
export const IDENTIFIER_MAX = 256;

const range = (min: number, max: number) => fc.integer({ min, max });
/** Code points by their UTF-8 width, control characters and surrogates left out. */
const WIDTH = {
  1: range(0x20, 0x7e),
  2: range(0xa0, 0x7ff),
  3: fc.oneof(range(0x800, 0xd7ff), range(0xe000, 0xffff)),
  4: range(0x10000, 0x10ffff),
} as const;
/** Characters that tend to break escaping, normalisation, byte-length arithmetic or surrogate handling. */
const NOTABLE = fc.constantFrom(
  0x20,
  0x22,
  0x27,
  0x2f,
  0x5c,
  0x25,
  0xa0,
  0xad,
  0x7ff,
  0x800,
  0x200b,
  0x200d,
  0x2028,
  0x2029,
  0xd7ff,
  0xe000,
  0xfeff,
  0xfffd,
  0xfffe,
  0xffff,
  0x10000,
  0x1f600,
  0x1f468,
  0xe0001,
  0x10fffd,
  0x10ffff,
);
const MIXED = fc.oneof(WIDTH[1], WIDTH[2], WIDTH[3], WIDTH[4], NOTABLE);

/** The code points an identifier is drawn from: one UTF-8 width throughout (to land on byte-length edges) or mixed. */
const CHARSET = { mixed: MIXED, ascii: WIDTH[1], two: WIDTH[2], three: WIDTH[3], astral: WIDTH[4] } as const;
export type Charset = keyof typeof CHARSET;

/**
 * Lengths in code units, biased to the edges: 1, 85–86 (255/258 bytes of 3-byte text), 127–128 (a 256-byte
 * astral id), 255–256 (the limit, and 256 bytes of ASCII: msgpack's str8/str16 boundary).
 */
export const identifierLength = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(1, 2, 85, 86, 127, 128, 255, 256) },
  { weight: 2, arbitrary: range(1, IDENTIFIER_MAX) },
  { weight: 3, arbitrary: range(1, 12) },
);

/**
 * Exactly `length` code units from the code points given. An astral character (two units) that would overrun
 * the length is replaced by a BMP one derived from it, so the length is always met exactly.
 */
export function textOfLength(codePoints: readonly number[], length: number): string {
  let out = "";
  for (const cp of codePoints) {
    const room = length - out.length;
    if (room <= 0) break;
    out += cp > 0xffff && room < 2 ? String.fromCodePoint(0x4e00 + (cp % 0x5000)) : String.fromCodePoint(cp);
  }
  return out;
}

/** A valid identifier of `length` code units from `charset`. */
export function identifierOf(charset: Charset, length: number): fc.Arbitrary<string> {
  return fc.array(CHARSET[charset], { minLength: length, maxLength: length }).map((cps) => textOfLength(cps, length));
}

export const charset: fc.Arbitrary<Charset> = fc.constantFrom<Charset>("mixed", "mixed", "ascii", "two", "three", "astral");

/** Any valid identifier: every plane, lengths 1..256 code units with a bias to the edges. */
export const identifier: fc.Arbitrary<string> = fc.tuple(charset, identifierLength).chain(([set, length]) => identifierOf(set, length));

/** A short valid identifier, for the many records of a boundary case. */
export const shortIdentifier: fc.Arbitrary<string> = fc.array(MIXED, { minLength: 1, maxLength: 8 }).map((cps) => textOfLength(cps, 8));

/** Control characters: C0, DEL and C1. */
export const controlChar = fc.oneof(range(0x00, 0x1f), fc.constant(0x7f), range(0x80, 0x9f)).map((cp) => String.fromCharCode(cp));

/** A surrogate without its partner: a lone high, a lone low, or a pair in the wrong order. */
export const loneSurrogate = fc.oneof(
  range(0xd800, 0xdbff).map((u) => String.fromCharCode(u)),
  range(0xdc00, 0xdfff).map((u) => String.fromCharCode(u)),
  fc.tuple(range(0xdc00, 0xdfff), range(0xd800, 0xdbff)).map(([lo, hi]) => String.fromCharCode(lo, hi)),
);

/** Puts `insert` into `text` at a position chosen by `at` (0..1), never between the two halves of a pair. */
export function insertAt(text: string, insert: string, at: number): string {
  let i = Math.floor(at * (text.length + 1));
  if (i > 0 && i < text.length && /[\udc00-\udfff]/.test(text[i]!) && /[\ud800-\udbff]/.test(text[i - 1]!)) i--;
  return text.slice(0, i) + insert + text.slice(i);
}

/** The first `n` code units of `text`, one fewer when the cut would leave a pair's high half at the end. */
export function prefixOf(text: string, n: number): string {
  const cut = text.slice(0, n);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Identifiers the contract refuses, each with what is wrong with it. */
export const invalidIdentifier: fc.Arbitrary<{ value: unknown; why: string }> = fc.oneof(
  fc.constant({ value: "", why: "empty" }),
  fc
    .tuple(charset, range(IDENTIFIER_MAX + 1, IDENTIFIER_MAX + 40))
    .chain(([set, n]) => identifierOf(set, n))
    .map((value) => ({ value, why: `${value.length} code units` })),
  // 255 units then an astral pair: 257 code units, though only 256 characters as a person counts them.
  identifierOf("ascii", 255).map((s) => ({ value: s + "\u{1f600}", why: "257 code units ending in a pair" })),
  fc
    .tuple(identifier, controlChar, fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([id, c, at]) => ({ value: insertAt(prefixOf(id, IDENTIFIER_MAX - 1), c, at), why: `control U+${c.charCodeAt(0).toString(16)}` })),
  fc
    .tuple(identifier, loneSurrogate, fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([id, s, at]) => ({ value: insertAt(prefixOf(id, IDENTIFIER_MAX - 2), s, at), why: "unpaired surrogate" })),
  fc.constantFrom<unknown>(42, true, ["a"], { id: "a" }).map((value) => ({ value, why: `a ${Array.isArray(value) ? "array" : typeof value}` })),
);
