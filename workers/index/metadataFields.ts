/**
 * The `fields` of a recommend request, cut out of an item's stored metadata text (a compact JSON object, as
 * itemText.ts renders it) without parsing it: a value is copied as the text it already is. Parsing the whole
 * object to keep a few keys cost one JS value per array element and string, which for items of a thousand
 * attribute values made a page of them the most expensive request an organisation could send.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** The index just past the JSON string that starts at `i` (its opening quote). */
function skipString(s: string, i: number): number {
  // indexOf runs natively: most of an attribute's text is inside strings.
  for (let q = s.indexOf('"', i + 1); q >= 0; q = s.indexOf('"', q + 1)) {
    let slashes = 0;
    while (s.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  throw new Error("metadata text ends inside a string");
}

/** The index just past the JSON value that starts at `i`. */
function skipValue(s: string, i: number): number {
  const first = s.charCodeAt(i);
  if (first === QUOTE) return skipString(s, i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET) return i;
      i++;
    }
    return i;
  }
  let depth = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(s, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    i++;
  }
  throw new Error("metadata text ends inside a value");
}

/**
 * `object`: a compact JSON object. Answers a JSON object of its members named in `fields` (in the order of
 * `fields`, each once), followed by `item_type` when `fields` does not name it.
 */
export function projectFields(object: string, fields: readonly string[]): string {
  const wanted = new Map<string, string | undefined>();
  for (const f of fields) wanted.set(f, undefined);
  if (!wanted.has("item_type")) wanted.set("item_type", undefined);
  let left = wanted.size;
  let i = 1; // past "{"
  while (left > 0 && i < object.length && object.charCodeAt(i) === QUOTE) {
    const keyEnd = skipString(object, i);
    const raw = object.slice(i + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(object.slice(i, keyEnd)) as string) : raw;
    const valueEnd = skipValue(object, keyEnd + 1); // past ":"
    if (wanted.has(key) && wanted.get(key) === undefined) {
      wanted.set(key, object.slice(i, valueEnd));
      left--;
    }
    i = valueEnd + 1; // past "," or the closing brace
  }
  let out = "{";
  for (const member of wanted.values()) {
    if (member === undefined) continue;
    if (out.length > 1) out += ",";
    out += member;
  }
  return out + "}";
}
