import { buildDocument } from "../../openapi/document.js";
import { renderReference } from "../../openapi/html/render.js";
import { DOCS_CSS } from "../../openapi/html/style.js";
import type { Services } from "../../services.js";
import { CORS_ORIGIN } from "../cors.js";
import type { RequestContext } from "../context.js";
import { sendStatic } from "../respond.js";
import { ANSWERS_LATER, type Route } from "../router.js";

const DOCUMENT_PATH = "/openapi.json";
const STYLE_PATH = "/docs/style.css";

/** The description is data anyone may fetch (tools read it cross-origin); nothing may load from it or frame it. */
const DOCUMENT_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
  ["x-content-type-options", "nosniff"],
  CORS_ORIGIN,
  ["cache-control", "no-cache"],
];

/** The page loads its own stylesheet and nothing else: no script, no font, no other origin. */
const REFERENCE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["content-security-policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "no-referrer"],
  ["cache-control", "no-cache"],
];

function staticRoute(pattern: string, type: string, body: Buffer, headers: ReadonlyArray<readonly [string, string]>): Route {
  return {
    method: "GET",
    pattern,
    body: "none",
    handler: (ctx: RequestContext) => {
      sendStatic(ctx, type, body, headers);
      return ANSWERS_LATER;
    },
  };
}

/** GET /openapi.json, and /docs rendering the same document; both built once, at start-up. */
export function openapiRoutes(_s: Services): Route[] {
  const document = buildDocument();
  const html = renderReference(document, STYLE_PATH, DOCUMENT_PATH);
  return [
    staticRoute(DOCUMENT_PATH, "application/json; charset=utf-8", Buffer.from(JSON.stringify(document)), DOCUMENT_HEADERS),
    staticRoute("/docs", "text/html; charset=utf-8", Buffer.from(html), REFERENCE_HEADERS),
    staticRoute(STYLE_PATH, "text/css; charset=utf-8", Buffer.from(DOCS_CSS), REFERENCE_HEADERS),
  ];
}
