import uWS from "uWebSockets.js";
import { appError } from "../errors.js";
import { routeStats, UNMATCHED } from "../metrics/routeStats.js";
import { readBody } from "./body.js";
import { answerPreflight } from "./cors.js";
import { RequestContext } from "./context.js";
import type { TrustedProxies } from "./trustedProxies.js";
import { sendError, sendReply } from "./respond.js";
import { ANSWERS_LATER, type Handler, type Match, type Outcome, type Router } from "./router.js";

export interface HttpServer {
  port: number;
  /** Stops accepting connections; requests already in progress still get their answers. */
  stopListening(): void;
}

/**
 * One catch-all uWS route feeds our router, so 404/405 and the `/api` aliases live in one place. `proxies`: whose
 * X-Forwarded-For is believed (TRUST_PROXY=1); undefined, none.
 */
export function startHttpServer(router: Router, host: string, port: number, proxies: TrustedProxies | undefined): Promise<HttpServer> {
  const app = uWS.App();
  app.any("/*", (res, req) => {
    const ctx = new RequestContext(res, req, proxies);
    res.onAborted(() => {
      ctx.aborted = true;
      ctx.onAbort?.();
    });
    dispatch(router, ctx);
  });
  return listen(app, host, port);
}

/** Listens on host:port (0: a free port) and resolves with the port taken. */
export function listen(app: uWS.TemplatedApp, host: string, port: number): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) {
        reject(new Error(`cannot listen on ${host}:${port}`));
        return;
      }
      resolve({
        port: uWS.us_socket_local_port(socket as unknown as uWS.us_socket),
        stopListening: () => uWS.us_listen_socket_close(socket),
      });
    });
  });
}

/** The metrics label of a request: its route's pattern (an /api alias counts as its /v1 form), never the raw path. */
function routeLabel(match: Match): string {
  if (match.kind === "found") return match.route.pattern;
  return match.kind === "method_not_allowed" ? match.pattern : UNMATCHED;
}

function dispatch(router: Router, ctx: RequestContext): void {
  const match = router.match(ctx.method, ctx.path);
  ctx.stats = routeStats.cell(routeLabel(match), ctx.method);
  if (match.kind === "not_found") {
    sendError(ctx, appError("not_found", "path", { path: ctx.path }));
    return;
  }
  if (match.kind === "method_not_allowed" && ctx.method === "OPTIONS") {
    answerPreflight(ctx, match.allowed);
    return;
  }
  if (match.kind === "method_not_allowed") {
    ctx.headers.push(["allow", match.allowed.join(", ")]);
    sendError(ctx, appError("method_not_allowed", "method", { method: ctx.method, path: ctx.path }));
    return;
  }
  ctx.params = match.params;
  const { handler } = match.route;
  // A "stream" handler attaches its own onData before it first awaits.
  if (match.route.body === "json") readBody(ctx, () => run(handler, ctx));
  else run(handler, ctx);
}

/** A handler that answers at once costs no promise; one that awaits is answered when it settles. */
function run(handler: Handler, ctx: RequestContext): void {
  let outcome: Promise<Outcome> | Outcome;
  try {
    outcome = handler(ctx);
  } catch (err) {
    sendError(ctx, err);
    return;
  }
  if (outcome instanceof Promise)
    outcome.then(
      (o) => answer(ctx, o),
      (err: unknown) => sendError(ctx, err),
    );
  else answer(ctx, outcome);
}

function answer(ctx: RequestContext, outcome: Outcome): void {
  if (outcome !== ANSWERS_LATER) sendReply(ctx, outcome);
}
