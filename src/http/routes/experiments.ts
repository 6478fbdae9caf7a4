import type { Role } from "../../auth/roles.js";
import { createExperiment, listExperiments, readExperiment, stopExperiment } from "../../experiments/experiments.js";
import { experimentResults } from "../../experiments/results.js";
import { CreateExperimentSchema } from "../../experiments/schemas.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { orgCaller } from "./orgCaller.js";
import { parseBody } from "./parse.js";

const EXPERIMENTERS: readonly Role[] = ["OWNER", "ADMIN", "DEVELOPER"];
/**
 * Experiments and their results are analytics, which any role may read (as GET /v1/analytics/strategies): a
 * MEMBER watching results on the dashboard finds them in the list.
 */
const READERS: readonly Role[] = [...EXPERIMENTERS, "MEMBER"];

const caller = (s: Services, ctx: RequestContext, action: string, roles = EXPERIMENTERS) => orgCaller(s, ctx, roles, action);

/** Experiments on a scenario (README, Experiments) and their results. */
export function experimentRoutes(s: Services): Route[] {
  return [
    {
      method: "POST",
      pattern: "/v1/experiments",
      body: "json",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "create experiments");
        const body = await parseBody(ctx, CreateExperimentSchema);
        const experiment = await createExperiment(s.pool, who, body, s.config.ORG_MAX_EXPERIMENTS);
        // This process at once (the others hear the notice): the next recommend request here is in the experiment.
        await s.experiments.refreshOrg(who.org);
        return { status: 201, message: `experiment running on scenario ${experiment.scenario}`, data: experiment };
      },
    },
    {
      method: "GET",
      pattern: "/v1/experiments",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "read experiments", READERS);
        const experiments = await listExperiments(s.pool, who.org);
        return { status: 200, message: `${experiments.length} experiments`, data: { experiments } };
      },
    },
    {
      method: "GET",
      pattern: "/v1/experiments/:experiment_id",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "read experiments", READERS);
        const experiment = await readExperiment(s.pool, who.org, ctx.params[0]!);
        return { status: 200, message: `experiment ${experiment.status}`, data: experiment };
      },
    },
    {
      method: "POST",
      pattern: "/v1/experiments/:experiment_id/stop",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "stop experiments");
        const experiment = await stopExperiment(s.pool, who, ctx.params[0]!);
        await s.experiments.refreshOrg(who.org);
        return { status: 200, message: "experiment stopped", data: experiment };
      },
    },
    {
      method: "GET",
      pattern: "/v1/analytics/experiments/:experiment_id",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx, "read experiment results", READERS);
        const results = await experimentResults(s.pool, who.org, ctx.params[0]!);
        return { status: 200, message: `results of experiment ${results.experiment_id}`, data: results };
      },
    },
  ];
}
