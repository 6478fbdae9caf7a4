import { RuleBodySchema, RuleIdSchema, RuleListSchema, RuleSchema } from "../../rules/schema.js";
import { API_KEY_ERRORS, DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const WHO =
  "Takes the secret key (`svc_sk_…`; the publishable key is 403 `wrong_key_type`), counted against the organisation's rate limit, or a dashboard token of an OWNER, ADMIN or DEVELOPER (another role is 403 `forbidden_role`).";
const CHANGE =
  "Audited (`rule.created`, `rule.updated`, `rule.deleted`). The change reaches this process's recommender threads before the answer, every other process's within a second.";
const RULE_ID = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b";
const CALLER_ERRORS = [...API_KEY_ERRORS, "invalid_token", "forbidden_role"] as const;
const RULE_EXAMPLE = {
  rule_id: RULE_ID,
  name: "Campaign third",
  enabled: true,
  action: "pin",
  items: { item_id: ["sku-42"] },
  scenarios: ["home"],
  position: 3,
  created_at: EXAMPLE.at,
  updated_at: EXAMPLE.at,
};
const ORDER =
  "Rules apply in the recommender after scoring and before paging, in this order: `block` (the item is never returned), `boost`/`bury` (its score × `factor`), `promote` (a `share` of each page's slots for the best matching items), `pin` (the best matching item at `position`). A pinned or promoted result's `reason` is `pinned:{name}` / `promoted:{name}`. Rules never return an inactive item, or one the request excluded or filtered out.";
const ruleIdParam = {
  rule_id: { schema: RuleIdSchema, description: "The id `POST /v1/rules` answered.", example: RULE_ID },
};

export const RULE_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/rules",
    operationId: "listRules",
    tag: "Rules",
    summary: "List the organisation's merchandising rules",
    description:
      "Takes the secret key (`svc_sk_…`; the publishable key is 403 `wrong_key_type`), counted against the organisation's rate limit, or a dashboard token of any role (a MEMBER reads rules, and changes none). " +
      "Every rule, enabled or not, oldest first, and `max` (RULES_MAX) the organisation may have.",
    auth: ["secretKey", "bearer"],
    success: {
      kind: "envelope",
      status: 200,
      description: "The rules.",
      message: "1 rules",
      data: { name: "RuleList", schema: RuleListSchema },
      example: { rules: [RULE_EXAMPLE], max: 100 },
    },
    errors: [...API_KEY_ERRORS, "invalid_token", ...DATABASE_ERRORS],
  },
  {
    method: "post",
    path: "/v1/rules",
    operationId: "createRule",
    tag: "Rules",
    summary: "Create a merchandising rule",
    description: `${WHO} ${CHANGE} ${ORDER} More than RULES_MAX (100) rules in an organisation is 403 \`quota_exceeded\`.`,
    auth: ["secretKey", "bearer"],
    body: { kind: "json", schema: { name: "RuleBody", schema: RuleBodySchema } },
    success: {
      kind: "envelope",
      status: 201,
      description: "The rule as stored.",
      message: "rule created",
      data: { name: "Rule", schema: RuleSchema },
      example: RULE_EXAMPLE,
    },
    errors: [...CALLER_ERRORS, ...JSON_BODY_ERRORS, "quota_exceeded", ...DATABASE_ERRORS],
  },
  {
    method: "put",
    path: "/v1/rules/{rule_id}",
    operationId: "updateRule",
    tag: "Rules",
    summary: "Replace a merchandising rule",
    description: `${WHO} ${CHANGE} The body is a whole rule, as for creating one; to disable a rule, send it with \`enabled: false\`.`,
    auth: ["secretKey", "bearer"],
    pathParams: ruleIdParam,
    body: { kind: "json", schema: { name: "RuleBody", schema: RuleBodySchema } },
    success: {
      kind: "envelope",
      status: 200,
      description: "The rule as stored.",
      message: "rule updated",
      data: { name: "Rule", schema: RuleSchema },
      example: RULE_EXAMPLE,
    },
    errors: [...CALLER_ERRORS, ...JSON_BODY_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
  {
    method: "delete",
    path: "/v1/rules/{rule_id}",
    operationId: "deleteRule",
    tag: "Rules",
    summary: "Delete a merchandising rule",
    description: `${WHO} ${CHANGE}`,
    auth: ["secretKey", "bearer"],
    pathParams: ruleIdParam,
    success: {
      kind: "envelope",
      status: 200,
      description: "The rule as it was.",
      message: "rule deleted",
      data: { name: "Rule", schema: RuleSchema },
      example: RULE_EXAMPLE,
    },
    errors: [...CALLER_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
];
