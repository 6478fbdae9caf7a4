import { z } from "zod";
import type { Role } from "../../auth/roles.js";
import { readErasure, requestErasure } from "../../erasure/erasures.js";
import { EraseRequestSchema } from "../../erasure/schemas.js";
import { appError } from "../../errors.js";
import type { Services } from "../../services.js";
import type { RequestContext } from "../context.js";
import type { Route } from "../router.js";
import { orgCaller } from "./orgCaller.js";
import { parseBody } from "./parse.js";

const ErasureId = z.uuid();

const ERASERS: readonly Role[] = ["OWNER", "ADMIN"];
const caller = (s: Services, ctx: RequestContext) => orgCaller(s, ctx, ERASERS, "erase users");

/** POST /v1/users/erase and GET /v1/users/erase/{id} (CONTRACT 7, README Erasure). */
export function erasureRoutes(s: Services): Route[] {
  return [
    {
      method: "POST",
      pattern: "/v1/users/erase",
      body: "json",
      handler: async (ctx) => {
        const who = await caller(s, ctx);
        const { user_ids } = await parseBody(ctx, EraseRequestSchema);
        const erasure = await requestErasure(s.pool, who, user_ids, s.config.ERASURES_PENDING_MAX, s.origin);
        // This process's threads at once (the others hear of it from the notice), before the answer: a request
        // this client sends next finds the users gone.
        s.recommender.erase(who.org, [...new Set(user_ids)]);
        s.erasures.kick();
        return {
          status: 202,
          message: `erasure of ${erasure.users} users accepted; their events are being deleted`,
          data: { erasure_id: erasure.id },
        };
      },
    },
    {
      method: "GET",
      pattern: "/v1/users/erase/:erasure_id",
      body: "none",
      handler: async (ctx) => {
        const who = await caller(s, ctx);
        const id = ctx.params[0]!;
        if (!ErasureId.safeParse(id).success) throw appError("not_found", "erasure", { id });
        const erasure = await readErasure(s.pool, who.org, id);
        return { status: 200, message: `erasure ${erasure.status}`, data: erasure };
      },
    },
  ];
}
