import type { z } from "zod";
import { MAX_RECORDS } from "../ingest/validate.js";
import { jsonSchemaOf, type JsonSchema } from "./jsonSchema.js";
import type { FileBody, JsonBody, Operation } from "./operation.js";
import type { SchemaRegistry } from "./schemaRegistry.js";

/** Path parameters, then query parameters (one per property of the query's schema). */
export function parameters(op: Operation): unknown[] {
  const path = Object.entries(op.pathParams ?? {}).map(([name, p]) => ({
    name,
    in: "path",
    required: true,
    description: p.description,
    schema: jsonSchemaOf(p.schema),
    example: p.example,
  }));
  return [...path, ...(op.query ? queryParameters(op.query) : [])];
}

function queryParameters(schema: z.ZodType): unknown[] {
  const object = jsonSchemaOf(schema);
  const required = (object.required as string[] | undefined) ?? [];
  return Object.entries(object.properties as Record<string, JsonSchema>).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: "query", required: required.includes(name), ...(description ? { description } : {}), schema: rest };
  });
}

export function requestBody(body: JsonBody | FileBody, registry: SchemaRegistry): unknown {
  return body.kind === "json" ? jsonBody(body, registry) : fileBody(body, registry);
}

function jsonBody(body: JsonBody, registry: SchemaRegistry): unknown {
  const one = registry.refTo(body.schema);
  const example = body.example ?? registry.exampleOf(body.schema);
  if (!body.batch) return { required: true, content: { "application/json": { schema: one, example } } };
  const many = { type: "array", minItems: 1, maxItems: MAX_RECORDS, items: one };
  return {
    required: true,
    description: `One ${body.schema.name} or an array of 1 to ${MAX_RECORDS} of them; at most 5 MiB.`,
    content: {
      "application/json": {
        schema: { anyOf: [one, many] },
        examples: { one: { summary: "One record", value: example }, batch: { summary: "A batch", value: [example] } },
      },
    },
  };
}

function fileBody(body: FileBody, registry: SchemaRegistry): unknown {
  const record = registry.refTo(body.schema);
  const example = registry.exampleOf(body.schema);
  return {
    required: true,
    description: `A file of ${body.schema.name} records, streamed: each row is checked against the ${body.schema.name} schema.`,
    content: {
      "text/csv": { schema: { type: "string" }, example: body.csvExample },
      "application/x-ndjson": { schema: { type: "string", description: "One JSON record per line." }, example: `${JSON.stringify(example)}\n` },
      "application/json": { schema: { type: "array", items: record }, example: [example] },
    },
  };
}
