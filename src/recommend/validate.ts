import { AppError } from "../errors.js";
import { describePath, issueMessage } from "../ingest/validate.js";
import { plainRecommend } from "./plainRecommend.js";
import { RecommendSchema, type RecommendBody } from "./schema.js";

const MAX_REPORTED = 20;

/** The recommend body, or 400 validation_error naming each failing field. */
export function validateRecommend(body: unknown): RecommendBody {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("validation_error", "body: expected a JSON object");
  }
  const plain = plainRecommend(body);
  if (plain) return plain;
  const r = RecommendSchema.safeParse(body);
  if (r.success) return r.data;
  const problems = r.error.issues.slice(0, MAX_REPORTED).map((i) => `${describePath("", i.path).replace(/^\./, "") || "body"}: ${issueMessage(i)}`);
  throw new AppError("validation_error", problems.join("; "));
}
