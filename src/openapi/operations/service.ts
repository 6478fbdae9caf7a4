import type { Operation } from "../operation.js";

/** The operations about the service itself: its metrics and this description. */
export const SERVICE_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/metrics",
    operationId: "metrics",
    tag: "Service",
    summary: "Prometheus metrics",
    description:
      "Routed only when the server runs with `METRICS_TOKEN` set (otherwise 404 like any unknown path), for `Authorization: Bearer <METRICS_TOKEN>`. " +
      "`METRICS_PORT` opens a second listener serving the same without a token.",
    auth: "metricsBearer",
    success: {
      kind: "raw",
      status: 200,
      description: "Every metric, in Prometheus' text format 0.0.4.",
      contentType: "text/plain; version=0.0.4",
      schema: { type: "string" },
    },
    errors: ["invalid_token", "internal_error"],
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "openapi",
    tag: "Service",
    summary: "This API description",
    description:
      "The OpenAPI 3.1 description of the API, generated from the schemas the server validates with; needs no key. `/docs` renders it as a page.",
    auth: "none",
    success: {
      kind: "raw",
      status: 200,
      description: "The OpenAPI 3.1 document.",
      contentType: "application/json",
      schema: {
        type: "object",
        required: ["openapi", "info", "paths", "components"],
        properties: {
          openapi: { const: "3.1.0" },
          info: { type: "object", additionalProperties: {} },
          paths: { type: "object", additionalProperties: {} },
          components: { type: "object", additionalProperties: {} },
        },
      },
    },
    errors: ["internal_error"],
  },
];
