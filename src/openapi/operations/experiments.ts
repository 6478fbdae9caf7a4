import { ExperimentListSchema, ExperimentSchema, CreateExperimentSchema } from "../../experiments/schemas.js";
import { ExperimentResultsSchema, TEST_WORDS } from "../../experiments/results.js";
import { API_KEY_ERRORS, DATABASE_ERRORS, JSON_BODY_ERRORS, type Operation } from "../operation.js";
import { EXAMPLE } from "./examples.js";

const WHO =
  "Takes the secret key (`svc_sk_…`; the publishable key is 403 `wrong_key_type`), counted against the organisation's rate limit, or a dashboard token of an OWNER, ADMIN or DEVELOPER (another role is 403 `forbidden_role`).";
/** Reading experiments is analytics: any role of the dashboard. */
const READ_WHO =
  "Takes the secret key (`svc_sk_…`; the publishable key is 403 `wrong_key_type`), counted against the organisation's rate limit, or a dashboard token of any role.";
const EXPERIMENT_ID = "0195a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b";
const CALLER_ERRORS = [...API_KEY_ERRORS, "invalid_token", "forbidden_role"] as const;
const PATH_PARAMS = {
  experiment_id: {
    schema: ExperimentSchema.shape.experiment_id,
    description: "The id `POST /v1/experiments` answered (an id that is not a UUID is 404).",
    example: EXPERIMENT_ID,
  },
};

const EXPERIMENT_EXAMPLE = {
  experiment_id: EXPERIMENT_ID,
  name: "Personalized vs trending on the home page",
  scenario: "home",
  status: "running",
  variants: [
    { name: "control", share: 0.5 },
    { name: "trending", share: 0.5, strategy: "trending" },
  ],
  holdout: 0.05,
  created_at: EXAMPLE.at,
  stopped_at: null,
};

const ASSIGNMENT =
  "Each recommend request of the scenario with a `user_id` is assigned by a hash of (experiment, user id): SHA-256 of the experiment id, a NUL byte and the user id; its first 48 bits over 2^48 fall in the holdout (the bottom `holdout` of [0, 1)) or in a variant (the rest, cut by the shares in order). " +
  "The variant's fields replace the request's; the answer carries `experiment: {id, variant}`, and the served recommendation stores both. " +
  "After `identify` the request's (now known) user id decides: the visitor may change variant once. A request without `user_id`, or one the variant's fields would make invalid, is served as sent and not counted.";

export const EXPERIMENT_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/experiments",
    operationId: "createExperiment",
    tag: "Experiments",
    summary: "Start an experiment on a scenario",
    description:
      `${WHO} Audited (\`experiment.created\`). 2 to 5 variants whose shares sum to 1 (within 1e-6); the first is the control and overrides nothing. ${ASSIGNMENT} ` +
      "In effect in this process before the answer, in every other process on the same database within about a second. " +
      "A scenario with a running experiment is 409 `conflict`; an organisation with `ORG_MAX_EXPERIMENTS` experiments (running or stopped) is 403 `quota_exceeded`.",
    auth: ["secretKey", "bearer"],
    body: { kind: "json", schema: { name: "CreateExperiment", schema: CreateExperimentSchema } },
    success: {
      kind: "envelope",
      status: 201,
      description: "The experiment, running.",
      message: "experiment running on scenario home",
      data: { name: "Experiment", schema: ExperimentSchema },
      example: EXPERIMENT_EXAMPLE,
    },
    errors: [...CALLER_ERRORS, ...JSON_BODY_ERRORS, "conflict", "quota_exceeded", ...DATABASE_ERRORS],
  },
  {
    method: "get",
    path: "/v1/experiments",
    operationId: "listExperiments",
    tag: "Experiments",
    summary: "List the organisation's experiments",
    description: `${READ_WHO} Running and stopped, newest first.`,
    auth: ["secretKey", "bearer"],
    success: {
      kind: "envelope",
      status: 200,
      description: "The experiments.",
      message: "1 experiments",
      data: { name: "ExperimentList", schema: ExperimentListSchema },
      example: { experiments: [EXPERIMENT_EXAMPLE] },
    },
    errors: [...CALLER_ERRORS, ...DATABASE_ERRORS],
  },
  {
    method: "get",
    path: "/v1/experiments/{experiment_id}",
    operationId: "getExperiment",
    tag: "Experiments",
    summary: "Read an experiment",
    description: READ_WHO,
    auth: ["secretKey", "bearer"],
    pathParams: PATH_PARAMS,
    success: {
      kind: "envelope",
      status: 200,
      description: "The experiment.",
      message: "experiment running",
      data: { name: "Experiment", schema: ExperimentSchema },
      example: EXPERIMENT_EXAMPLE,
    },
    errors: [...CALLER_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
  {
    method: "post",
    path: "/v1/experiments/{experiment_id}/stop",
    operationId: "stopExperiment",
    tag: "Experiments",
    summary: "Stop an experiment",
    description:
      `${WHO} Audited (\`experiment.stopped\`). From then on the scenario's requests are served as sent (in every process within about a second); the results stay readable. ` +
      "Stopping a stopped experiment changes nothing.",
    auth: ["secretKey", "bearer"],
    pathParams: PATH_PARAMS,
    success: {
      kind: "envelope",
      status: 200,
      description: "The experiment, stopped.",
      message: "experiment stopped",
      data: { name: "Experiment", schema: ExperimentSchema },
      example: { ...EXPERIMENT_EXAMPLE, status: "stopped", stopped_at: "2025-03-08T12:00:00.000Z" },
    },
    errors: [...CALLER_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
  {
    method: "get",
    path: "/v1/analytics/experiments/{experiment_id}",
    operationId: "experimentResults",
    tag: "Analytics",
    summary: "An experiment's results per variant, with 95 % intervals and the difference against the control",
    description:
      "The secret key, or a dashboard token of any role. Counts the recommendations served under each variant and the events carrying their `recommendation_id` " +
      `(a click: an engagement event of positive weight; a conversion: a conversion event). Statistics: ${TEST_WORDS}. ` +
      "Decide on `user_conversion` (or `user_click_through`): the user is the unit assigned, whereas one user's served recommendations are not independent of each other, so the per-served intervals are too narrow when users get many. " +
      "Fix the sample size (or the end date) before looking: stopping at the first `significant` reading inflates false positives.",
    auth: ["secretKey", "bearer"],
    pathParams: PATH_PARAMS,
    success: {
      kind: "envelope",
      status: 200,
      description: "The results so far.",
      message: `results of experiment ${EXPERIMENT_ID}`,
      data: { name: "ExperimentResults", schema: ExperimentResultsSchema },
      example: {
        experiment_id: EXPERIMENT_ID,
        name: "Personalized vs trending on the home page",
        scenario: "home",
        status: "running",
        created_at: EXAMPLE.at,
        stopped_at: null,
        confidence: 0.95,
        test: TEST_WORDS,
        variants: [
          {
            variant: "control",
            control: true,
            users: 1000,
            served: 4000,
            clicks: 400,
            conversions: 80,
            users_clicked: 300,
            users_converted: 60,
            click_through: { rate: 0.1, low: 0.091083, high: 0.109684 },
            conversion: { rate: 0.02, low: 0.0161, high: 0.024821 },
            user_click_through: { rate: 0.3, low: 0.272407, high: 0.329124 },
            user_conversion: { rate: 0.06, low: 0.046896, high: 0.076471 },
            against_control: null,
          },
          {
            variant: "trending",
            control: false,
            users: 1000,
            served: 4000,
            clicks: 480,
            conversions: 120,
            users_clicked: 340,
            users_converted: 90,
            click_through: { rate: 0.12, low: 0.110292, high: 0.130437 },
            conversion: { rate: 0.03, low: 0.025148, high: 0.035754 },
            user_click_through: { rate: 0.34, low: 0.311302, high: 0.369923 },
            user_conversion: { rate: 0.09, low: 0.073796, high: 0.109342 },
            against_control: {
              click_through: { difference: 0.02, low: 0.006288, high: 0.033727, p_value: 0.004255, significant: true },
              conversion: { difference: 0.01, low: 0.00316, high: 0.016951, p_value: 0.004177, significant: true },
              user_click_through: { difference: 0.04, low: -0.000887, high: 0.080703, p_value: 0.055185, significant: false },
              user_conversion: { difference: 0.03, low: 0.006895, high: 0.053363, p_value: 0.01087, significant: true },
            },
          },
        ],
        daily: [
          {
            day: "2025-03-01",
            variant: "control",
            users: 1000,
            served: 4000,
            clicks: 400,
            conversions: 80,
            click_through_rate: 0.1,
            conversion_rate: 0.02,
          },
          {
            day: "2025-03-01",
            variant: "trending",
            users: 1000,
            served: 4000,
            clicks: 480,
            conversions: 120,
            click_through_rate: 0.12,
            conversion_rate: 0.03,
          },
        ],
      },
    },
    errors: [...CALLER_ERRORS, "not_found", ...DATABASE_ERRORS],
  },
];
