import { appError, schemaError } from "../errors.js";
import { plainRecommend } from "./plainRecommend.js";
import { RecommendSchema, type RecommendBody } from "./schema.js";

/** The recommend body, or 400 validation_error naming each failing field. */
export function validateRecommend(body: unknown): RecommendBody {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw appError("validation_error", "notObject");
  }
  const plain = plainRecommend(body);
  if (plain) return plain;
  const r = RecommendSchema.safeParse(body);
  if (r.success) return r.data;
  throw schemaError(r.error);
}
