import { HealthSchema, ReadySchema } from "../../http/routes/health.js";
import type { Operation } from "../operation.js";

export const HEALTH_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/healthz",
    operationId: "health",
    tag: "Health",
    summary: "Is the process up",
    description: "Answers as long as the process runs; needs no key.",
    auth: "none",
    success: {
      kind: "envelope",
      status: 200,
      description: "The process is up.",
      message: "up",
      data: { name: "Health", schema: HealthSchema },
      example: { status: "up" },
    },
    errors: ["internal_error"],
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "ready",
    tag: "Health",
    summary: "Is the service ready to serve",
    description: "Ready once the database is reachable and the recommender index is loaded; 503 `unavailable` otherwise. Needs no key.",
    auth: "none",
    success: {
      kind: "envelope",
      status: 200,
      description: "Database reachable, index loaded.",
      message: "ready",
      data: { name: "Ready", schema: ReadySchema },
      example: { status: "ready", database: "up", index: "loaded", ingest_queue: 0 },
    },
    errors: ["unavailable", "internal_error"],
  },
];
