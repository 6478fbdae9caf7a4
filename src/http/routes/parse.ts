import type { z } from "zod";
import { schemaError } from "../../errors.js";
import { readJson } from "../body.js";
import type { RequestContext } from "../context.js";

/** Reads the JSON body and validates it against a schema; the failing fields are named in the message (describeIssues). */
export async function parseBody<T>(ctx: RequestContext, schema: z.ZodType<T>): Promise<T> {
  return parseValue(await readJson(ctx), schema);
}

export function parseValue<T>(value: unknown, schema: z.ZodType<T>): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw schemaError(r.error);
}

export function parseQuery<T>(ctx: RequestContext, schema: z.ZodType<T>): T {
  return parseValue(Object.fromEntries(new URLSearchParams(ctx.query)), schema);
}
