import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { buildDocument, HTTP_METHODS, type OpenApiDocument } from "../../src/openapi/document.js";
import { documentPath, isBrowserFile } from "../helpers/openapi.js";
import type * as RouterModule from "../../src/http/router.js";
import type { Route, Router } from "../../src/http/router.js";
import type { Services } from "../../src/services.js";

const ROOT = new URL("../../", import.meta.url);
const MAIN = readFileSync(new URL("src/main.ts", ROOT), "utf8");

/** The route groups main.ts registers, read from its list, each with the module it imports it from. */
function routeGroupsOfMain(): Array<{ name: string; module: string }> {
  const list = /for \(const routes of \[([^\]]+)\]\)/.exec(MAIN);
  if (!list) throw new Error("src/main.ts no longer registers its route groups in a `for (const routes of [...])` list");
  return list[1]!
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "")
    .map((name) => {
      const from = new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from "\\./([^"]+)"`).exec(MAIN);
      if (!from) throw new Error(`no import of ${name} in src/main.ts`);
      return { name, module: from[1]! };
    });
}

/**
 * A router holding every route main.ts registers, built by the same factories from the compiled tree (the
 * files they read sit where they do for the server). Building routes reads only settings; METRICS_TOKEN is set
 * so that /metrics is routed, as it is on a server that has one.
 */
async function mainRouter(): Promise<Router> {
  const { Router } = (await import(new URL("dist/src/http/router.js", ROOT).href)) as typeof RouterModule;
  const services = { config: loadConfig({ METRICS_TOKEN: "a-metrics-token-for-listing" }) } as unknown as Services;
  const router = new Router();
  for (const group of routeGroupsOfMain()) {
    const module = (await import(new URL(`dist/src/${group.module}`, ROOT).href)) as Record<string, (s: Services) => Route[]>;
    module[group.name]!(services).forEach((r) => router.add(r));
  }
  return router;
}

/** The rule, both ways: routes that are not browser files, missing from the document; and operations no route answers. */
function mismatches(routes: Array<{ method: string; pattern: string }>, doc: OpenApiDocument): { undocumented: string[]; unrouted: string[] } {
  const routed = routes.filter((r) => !isBrowserFile(r.pattern)).map((r) => `${r.method} ${documentPath(r.pattern)}`);
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`),
  );
  return { undocumented: routed.filter((r) => !documented.includes(r)), unrouted: documented.filter((d) => !routed.includes(d)) };
}

describe("the routes the OpenAPI document covers", () => {
  it("documents every route main.ts registers except the browser's files, and nothing the router does not hold", async () => {
    const router = await mainRouter();
    expect(router.routes().length).toBeGreaterThan(20);
    expect(mismatches(router.routes(), buildDocument())).toEqual({ undocumented: [], unrouted: [] });
  });

  it("leaves out only the browser's files: the root's redirect, the dashboard, the SDK build and the /docs page", async () => {
    const browserFiles = (await mainRouter())
      .routes()
      .filter((r) => isBrowserFile(r.pattern))
      .map((r) => `${r.method} ${r.pattern}`);
    expect(browserFiles).toEqual(expect.arrayContaining(["GET /", "GET /docs", "GET /docs/style.css", "GET /dashboard"]));
    expect(browserFiles.every((p) => p.startsWith("GET "))).toBe(true);
  });

  it("fails when a route is added without being documented, or documented without a route", async () => {
    const routes = [...(await mainRouter()).routes(), { method: "PUT", pattern: "/v1/members/:id" }];
    const doc = buildDocument();
    const { "/v1/analytics/strategies": gone, ...paths } = doc.paths;
    void gone;
    expect(mismatches(routes, { ...doc, paths })).toEqual({
      undocumented: ["GET /v1/analytics/strategies", "PUT /v1/members/{id}"],
      unrouted: [],
    });
    expect(mismatches([], doc).unrouted).toContain("POST /v1/recommend");
  });
});
