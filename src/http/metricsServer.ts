import uWS from "uWebSockets.js";
import { appError } from "../errors.js";
import { RequestContext } from "./context.js";
import { sendError } from "./respond.js";
import { answerScrape } from "./routes/metrics.js";
import { listen, type HttpServer } from "./server.js";

/**
 * A listener of its own for Prometheus (METRICS_PORT): GET /metrics without a token, 404 for anything else. It
 * trusts whoever reaches it, so the operator binds it (METRICS_HOST) to loopback or a private interface. Its
 * requests are not counted in the HTTP metrics, which describe the service's own port.
 */
export function startMetricsServer(host: string, port: number): Promise<HttpServer> {
  const app = uWS.App();
  app.get("/metrics", (res, req) => {
    const ctx = new RequestContext(res, req, undefined);
    res.onAborted(() => {
      ctx.aborted = true;
    });
    answerScrape(ctx).catch((err: unknown) => sendError(ctx, err));
  });
  app.any("/*", (res, req) => {
    const ctx = new RequestContext(res, req, undefined);
    sendError(ctx, appError("not_found", "metricsListener"));
  });
  return listen(app, host, port);
}
