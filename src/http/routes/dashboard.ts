import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Services } from "../../services.js";
import { sendRedirect, sendStatic } from "../respond.js";
import { ANSWERS_LATER, type Route } from "../router.js";

/** The web dashboard's files: plain HTML, CSS and its script's modules, served as they are (no build step). */
const WEB_DIR = fileURLToPath(new URL("../../../../src/web/dashboard/", import.meta.url));

/** The page may load only its own script and styles and call only this server; nothing may frame it. */
const DASHBOARD_HEADERS: ReadonlyArray<readonly [string, string]> = [
  [
    "content-security-policy",
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: https:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  ],
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "no-referrer"],
  ["cache-control", "no-cache"],
];

const FILES: ReadonlyArray<{ paths: string[]; file: string; type: string }> = [
  { paths: ["/dashboard", "/dashboard/"], file: "index.html", type: "text/html; charset=utf-8" },
  { paths: ["/dashboard/app.js"], file: "app.js", type: "text/javascript; charset=utf-8" },
  { paths: ["/dashboard/charts.js"], file: "charts.js", type: "text/javascript; charset=utf-8" },
  { paths: ["/dashboard/verdict.js"], file: "verdict.js", type: "text/javascript; charset=utf-8" },
  { paths: ["/dashboard/style.css"], file: "style.css", type: "text/css; charset=utf-8" },
];

/** The server's root is no API path: a browser opening it is led to the dashboard (302: the target may change). */
const ROOT: Route = {
  method: "GET",
  pattern: "/",
  body: "none",
  handler: (ctx) => {
    sendRedirect(ctx, "/dashboard");
    return ANSWERS_LATER;
  },
};

export function dashboardRoutes(_s: Services): Route[] {
  const files = FILES.flatMap(({ paths, file, type }): Route[] => {
    const body = readFileSync(WEB_DIR + file); // read once at start: a handful of small files
    return paths.map((pattern) => ({
      method: "GET",
      pattern,
      body: "none" as const,
      handler: (ctx) => {
        sendStatic(ctx, type, body, DASHBOARD_HEADERS);
        return ANSWERS_LATER;
      },
    }));
  });
  return [ROOT, ...files];
}
