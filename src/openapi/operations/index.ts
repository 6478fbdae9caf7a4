import type { Operation } from "../operation.js";
import { ACCOUNT_OPERATIONS } from "./accounts.js";
import { ANALYTICS_OPERATIONS } from "./analytics.js";
import { AUTH_OPERATIONS } from "./auth.js";
import { ERASURE_OPERATIONS } from "./erasure.js";
import { EXPERIMENT_OPERATIONS } from "./experiments.js";
import { HEALTH_OPERATIONS } from "./health.js";
import { INGEST_OPERATIONS } from "./ingest.js";
import { RECOMMEND_OPERATIONS } from "./recommend.js";
import { RULE_OPERATIONS } from "./rules.js";
import { SERVICE_OPERATIONS } from "./service.js";
import { SETTINGS_OPERATIONS } from "./settings.js";
import { UPLOAD_OPERATIONS } from "./upload.js";

/** Every documented operation, in the order the description lists them. */
export const OPERATIONS: readonly Operation[] = [
  ...AUTH_OPERATIONS,
  ...ACCOUNT_OPERATIONS,
  ...SETTINGS_OPERATIONS,
  ...UPLOAD_OPERATIONS,
  ...INGEST_OPERATIONS,
  ...ERASURE_OPERATIONS,
  ...RECOMMEND_OPERATIONS,
  ...RULE_OPERATIONS,
  ...EXPERIMENT_OPERATIONS,
  ...ANALYTICS_OPERATIONS,
  ...HEALTH_OPERATIONS,
  ...SERVICE_OPERATIONS,
];
