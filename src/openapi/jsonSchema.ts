import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), describing what a client sends or reads.
 * Custom checks come out as `{}` unless the schema states its shape with `.meta()`.
 */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  void $schema; // the document declares the dialect once
  // Local `$defs` would point into the wrong root once embedded in the document.
  if ("$defs" in rest) throw new Error("a schema of the API description holds $defs; inline it or name it as a component");
  return rest;
}
