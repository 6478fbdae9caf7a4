import { AppError } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Route } from "../router.js";

export function healthRoutes(s: Services): Route[] {
  return [
    { method: "GET", pattern: "/healthz", body: "none", handler: () => ({ status: 200, message: "up", data: { status: "up" } }) },
    {
      method: "GET",
      pattern: "/readyz",
      body: "none",
      handler: async () => {
        const database = await s.health.check();
        if (!database) throw new AppError("unavailable", "not ready: the database is unreachable");
        if (!s.recommender.ready) throw new AppError("unavailable", "not ready: the recommender index is loading");
        return { status: 200, message: "ready", data: { status: "ready", database: "up", index: "loaded", ingest_queue: s.batcher.queued } };
      },
    },
  ];
}
