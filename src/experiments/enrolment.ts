import { plainRecommend } from "../recommend/plainRecommend.js";
import { RecommendSchema, type RecommendBody } from "../recommend/schema.js";
import type { Arm, RunningExperiment } from "./running.js";

export interface Enrolled {
  /** The request as the user's arm makes it. */
  body: RecommendBody;
  arm: Arm;
}

/**
 * The request under the running experiment of its scenario: the user's arm's fields replace the request's.
 * Undefined (the request is served as sent, and not counted in the experiment) when there is no experiment,
 * no user_id to assign by, or the arm's fields do not make a valid request with this one's (an item strategy
 * for a request with no context item): the site's request must not fail because of an experiment.
 */
export function enrol(experiment: RunningExperiment | undefined, body: RecommendBody): Enrolled | undefined {
  if (experiment === undefined || body.user_id === undefined) return undefined;
  const arm = experiment.armOf(body.user_id);
  if (arm.overrides === undefined) return { body, arm };
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== undefined) merged[key] = value;
  Object.assign(merged, arm.overrides);
  const plain = plainRecommend(merged);
  if (plain) return { body: plain, arm };
  const r = RecommendSchema.safeParse(merged);
  return r.success ? { body: r.data, arm } : undefined;
}
