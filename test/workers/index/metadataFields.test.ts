import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { projectFields } from "../../../workers/index/metadataFields.js";

/** What the projection must equal: the object parsed, its named members kept, `item_type` always. */
function parsedProjection(object: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields)
    if (Object.hasOwn(object, f)) Object.defineProperty(out, f, { value: object[f], enumerable: true, writable: true, configurable: true });
  if (Object.hasOwn(object, "item_type") && !Object.hasOwn(out, "item_type")) out.item_type = object.item_type;
  return out;
}

const key = fc.oneof(
  fc.constantFrom("tags", "brand", "item_type", 'q"uote', "back\\slash", "{brace}", "[x]", "a,b", "é", "1", "__proto__"),
  fc.string(),
);
const value = fc.jsonValue({ maxDepth: 3 });

describe("projectFields", () => {
  it("keeps the named members of any JSON object, and item_type, equal to parsing it and picking them", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 8 }), fc.array(key, { maxLength: 5 }), fc.option(fc.string()), (attributes, fields, type) => {
        const object = { ...attributes, item_type: type };
        const text = JSON.stringify(object);
        const projected = JSON.parse(projectFields(text, fields)) as Record<string, unknown>;
        expect(projected).toEqual(parsedProjection(JSON.parse(text) as Record<string, unknown>, fields));
      }),
      { numRuns: 2000 },
    );
  });

  it("names each member once, in the order of fields, with item_type last unless fields names it", () => {
    const text = JSON.stringify({ b: [1, "x"], a: { n: "}" }, c: "s", item_type: "book" });
    expect(projectFields(text, ["c", "a", "c", "missing"])).toBe('{"c":"s","a":{"n":"}"},"item_type":"book"}');
    expect(projectFields(text, ["item_type", "b"])).toBe('{"item_type":"book","b":[1,"x"]}');
    expect(projectFields(text, [])).toBe('{"item_type":"book"}');
  });
});
