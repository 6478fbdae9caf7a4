import type { RequestContext } from "./context.js";

/** What a handler returns on success; failures are thrown as AppError. */
export interface Reply {
  status: number;
  message: string;
  data: unknown;
  /** Ingestion replies carry `error: null` in their envelope (spec 4.2). */
  ingest?: boolean;
}

/**
 * Returned by a handler that has arranged to answer by itself later (sendReply/sendError), such as an
 * ingestion waiting for its commit: no promise per request.
 */
export const ANSWERS_LATER: unique symbol = Symbol("answers later");
export type Outcome = Reply | typeof ANSWERS_LATER;

export type Handler = (ctx: RequestContext) => Promise<Outcome> | Outcome;

export interface Route {
  method: string;
  pattern: string;
  /**
   * `json`: the handler runs once the body is read (bounded; see jsonBody); `stream`: the handler reads the
   * body itself as it arrives (uploads); `none`: no body expected.
   */
  body: "json" | "stream" | "none";
  handler: Handler;
}

export type Match =
  { kind: "found"; route: Route; params: string[] } | { kind: "method_not_allowed"; pattern: string; allowed: string[] } | { kind: "not_found" };

interface Compiled {
  pattern: string;
  regex: RegExp;
  methods: Map<string, Route>;
}

/** Paths answer under `/v1` and `/auth`, and identically under `/api/v1` and `/api/auth` (CONTRACT 2). */
export function canonicalPath(path: string): string {
  if (path.startsWith("/api/v1/") || path.startsWith("/api/auth/")) return path.slice(4);
  return path;
}

export class Router {
  private readonly exact = new Map<string, Map<string, Route>>();
  private readonly patterns: Compiled[] = [];

  add(route: Route): void {
    if (!route.pattern.includes(":")) {
      const methods = this.exact.get(route.pattern) ?? new Map<string, Route>();
      methods.set(route.method, route);
      this.exact.set(route.pattern, methods);
      return;
    }
    const source = "^" + route.pattern.replace(/:[a-z_]+/g, "([^/]+)") + "$";
    let compiled = this.patterns.find((p) => p.regex.source === new RegExp(source).source);
    if (!compiled) {
      compiled = { pattern: route.pattern, regex: new RegExp(source), methods: new Map() };
      this.patterns.push(compiled);
    }
    compiled.methods.set(route.method, route);
  }

  match(method: string, rawPath: string): Match {
    const path = canonicalPath(rawPath);
    const exact = this.exact.get(path);
    if (exact) return pick(path, exact, method, []);
    for (const p of this.patterns) {
      const m = p.regex.exec(path);
      if (m) return pick(p.pattern, p.methods, method, m.slice(1).map(decodeParam));
    }
    return { kind: "not_found" };
  }

  /** Every route held, as method and pattern (`:name` parameters), so that what documents the routes can be checked against them. */
  routes(): Array<{ method: string; pattern: string }> {
    const held = [...this.exact.entries()].map(([pattern, methods]) => ({ pattern, methods }));
    return [...held, ...this.patterns].flatMap(({ pattern, methods }) => [...methods.keys()].map((method) => ({ method, pattern })));
  }
}

/**
 * A path parameter, percent-decoded. A malformed escape (`%ZZ`, a lone `%E0`) stays as sent rather than
 * throwing: decodeURIComponent's URIError, raised in uWS's request callback, would end the process. No valid
 * id holds such a sequence, so the handler's own id check answers it (404).
 */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function pick(pattern: string, methods: Map<string, Route>, method: string, params: string[]): Match {
  const route = methods.get(method) ?? (method === "HEAD" ? methods.get("GET") : undefined);
  if (route) return { kind: "found", route, params };
  return { kind: "method_not_allowed", pattern, allowed: [...methods.keys()] };
}
