import type { z } from "zod";
import { ref } from "./components.js";
import { jsonSchemaOf, type JsonSchema } from "./jsonSchema.js";
import type { Named } from "./operation.js";

/** The named schemas of the document: each zod schema converted once, then referred to by `$ref`. */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly sources = new Map<string, z.ZodType>();

  refTo(named: Named): { $ref: string } {
    const known = this.sources.get(named.name);
    if (known && known !== named.schema) throw new Error(`two different schemas are both named ${named.name}`);
    if (!known) {
      this.sources.set(named.name, named.schema);
      this.schemas[named.name] = jsonSchemaOf(named.schema);
    }
    return ref("schemas", named.name);
  }

  /** The first `.meta({ examples })` value of a named schema, if it has one. */
  exampleOf(named: Named): unknown {
    this.refTo(named);
    const examples = this.schemas[named.name]!.examples;
    return Array.isArray(examples) ? examples[0] : undefined;
  }
}
