import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS } from "../../src/errors.js";
import { buildDocument, HTTP_METHODS } from "../../src/openapi/document.js";
import { AnswerChecker, pointer } from "../helpers/openapi.js";

const doc = buildDocument();
const checker = new AnswerChecker(doc);
type Obj = Record<string, unknown>;

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  HTTP_METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Obj })),
);

/** Every node of a JSON value with its JSON pointer. */
function* walk(value: unknown, at = "#"): Generator<[string, unknown]> {
  yield [at, value];
  if (typeof value !== "object" || value === null) return;
  for (const [k, v] of Object.entries(value)) yield* walk(v, `${at}/${pointer(k)}`);
}

function resolvePointer(ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>((node, key) => (node as Obj | undefined)?.[key], doc);
}

/** Every media type object of the document (requests and responses), with its pointer. */
function mediaTypes(): Array<[string, Obj]> {
  return [...walk(doc)].filter(([at]) => /\/content\/[^/]+$/.test(at)) as Array<[string, Obj]>;
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with a title, a version and at least one operation", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(operations.length).toBeGreaterThan(0);
  });

  it("gives every operation a unique operationId, a summary and responses with one success", () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op, path, method } of operations) {
      expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
      const statuses = Object.keys(op.responses as Obj);
      expect(
        statuses.filter((s) => s.startsWith("2")),
        `${method} ${path}`,
      ).toHaveLength(1);
    }
  });

  it("resolves every $ref inside the document", () => {
    const refs = [...walk(doc)].filter(([at]) => at.endsWith("/$ref")).map(([, ref]) => ref as string);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((ref) => !ref.startsWith("#/") || resolvePointer(ref) === undefined)).toEqual([]);
  });

  it("declares every path parameter of a path, and no other", () => {
    for (const { path, op } of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = ((op.parameters as Obj[] | undefined) ?? []).filter((p) => p.in === "path");
      expect(declared.map((p) => p.name).sort(), path).toEqual(inPath);
      expect(declared.every((p) => p.required === true)).toBe(true);
    }
  });

  it("names only security schemes it defines, on every operation", () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    for (const { op } of operations) {
      for (const requirement of op.security as Obj[]) expect(schemes).toEqual(expect.arrayContaining(Object.keys(requirement)));
    }
  });

  it("takes its error codes from the catalog of src/errors.ts, each under its own status", () => {
    expect((doc.components.schemas as Obj & { ErrorCode: { enum: string[] } }).ErrorCode.enum).toEqual(Object.keys(ERROR_STATUS));
    for (const { op, path } of operations) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Obj>)) {
        if (status.startsWith("2")) continue;
        const schema = (response.content as Record<string, { schema: { allOf: Obj[] } }>)["application/json"]!.schema;
        const codes = (schema.allOf[1] as { properties: { error: { enum: (keyof typeof ERROR_STATUS)[] } } }).properties.error.enum;
        expect(
          codes.map((c) => ERROR_STATUS[c]),
          `${path} ${status}`,
        ).toEqual(codes.map(() => Number(status)));
      }
    }
  });

  it("holds no $schema and no local $defs (each schema is inlined or a component)", () => {
    expect([...walk(doc)].filter(([at]) => at.endsWith("/$schema") || at.endsWith("/$defs"))).toEqual([]);
  });

  it("gives every media type an example its own schema accepts", () => {
    for (const [at, media] of mediaTypes()) {
      const examples =
        media.example !== undefined ? [media.example] : Object.values((media.examples as Record<string, Obj>) ?? {}).map((e) => e.value);
      if (examples.length === 0) continue;
      for (const example of examples) expect(checker.validates(`${at}/schema`, example), at).toEqual([]);
    }
  });

  it("gives examples to every request body and every JSON response", () => {
    const jsonWithoutExample = mediaTypes().filter(
      ([at, m]) => at.endsWith("application~1json") && m.example === undefined && m.examples === undefined,
    );
    // The description itself (GET /openapi.json) is the one JSON answer with no example: it is this document.
    expect(jsonWithoutExample.map(([at]) => at)).toEqual(["#/paths/~1openapi.json/get/responses/200/content/application~1json"]);
  });

  it("accepts each component schema's own examples", () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Obj>)) {
      for (const example of (schema.examples as unknown[] | undefined) ?? [])
        expect(checker.validates(`#/components/schemas/${name}`, example), name).toEqual([]);
    }
  });
});

describe("the document against the OpenAPI Initiative's schema of 3.1", () => {
  it("says what every object may hold, so that generated clients can pass free-form values (filters, attributes)", () => {
    // openapi-typescript 7 turns `{"type": "object"}` with nothing else into Record<string, never>.
    const bare = [...walk(doc)].filter(
      ([, node]) =>
        typeof node === "object" &&
        node !== null &&
        (node as Obj).type === "object" &&
        !["properties", "additionalProperties", "patternProperties"].some((k) => k in (node as Obj)),
    );
    expect(bare.map(([at]) => at)).toEqual([]);
    const recommend = resolvePointer("#/paths/~1v1~1recommend/post/requestBody/content/application~1json/schema") as Obj;
    const filters = ((recommend.properties ?? (resolvePointer(recommend.$ref as string) as Obj).properties) as Obj).filters as Obj;
    // A value, a list of values, or a {min, max} range.
    const value = JSON.stringify(filters.additionalProperties);
    for (const part of [
      '{"type":"boolean"}',
      '{"type":"number"}',
      '"type":"array"',
      '"properties":{"min":{"type":"number"},"max":{"type":"number"}}',
    ])
      expect(value).toContain(part);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    expect(await validator.validate(structuredClone(doc))).toEqual({ valid: true });
    expect(validator.version).toBe("3.1");
  });

  it("is refused by that check when a key is said to travel in the body, so the check is not vacuous", async () => {
    const broken = structuredClone(doc);
    (broken.components.securitySchemes as Record<string, Obj>).publishableKey.in = "body";
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});
