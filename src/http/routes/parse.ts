import type { z } from "zod";
import { AppError } from "../../errors.js";
import { readJson } from "../body.js";
import type { RequestContext } from "../context.js";

/** Reads the JSON body and validates it against a schema; every failing field is named in the message. */
export async function parseBody<T>(ctx: RequestContext, schema: z.ZodType<T>): Promise<T> {
  return parseValue(await readJson(ctx), schema);
}

export function parseValue<T>(value: unknown, schema: z.ZodType<T>): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const message = r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
  throw new AppError("validation_error", message);
}

export function parseQuery<T>(ctx: RequestContext, schema: z.ZodType<T>): T {
  return parseValue(Object.fromEntries(new URLSearchParams(ctx.query)), schema);
}
