import { z } from "zod";
import { appError } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Route } from "../router.js";

export const HealthSchema = z.strictObject({ status: z.literal("up") });
export const ReadySchema = z.strictObject({
  status: z.literal("ready"),
  database: z.literal("up"),
  index: z.literal("loaded"),
  ingest_queue: z.number().int().min(0).meta({ description: "Records accepted and waiting for a writer." }),
});
type Health = z.infer<typeof HealthSchema>;
type Ready = z.infer<typeof ReadySchema>;

export function healthRoutes(s: Services): Route[] {
  return [
    { method: "GET", pattern: "/healthz", body: "none", handler: () => ({ status: 200, message: "up", data: { status: "up" } satisfies Health }) },
    {
      method: "GET",
      pattern: "/readyz",
      body: "none",
      handler: async () => {
        const database = await s.health.check();
        if (!database) throw appError("unavailable", "notReadyDatabase");
        if (!s.recommender.ready) throw appError("unavailable", "notReadyIndex");
        const data: Ready = { status: "ready", database: "up", index: "loaded", ingest_queue: s.batcher.queued };
        return { status: 200, message: "ready", data };
      },
    },
  ];
}
