import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocument, HTTP_METHODS } from "../../src/openapi/document.js";
import { renderReference } from "../../src/openapi/html/render.js";
import { startServer, type TestServer } from "../helpers/server.js";

const doc = buildDocument();
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  HTTP_METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as { operationId: string; summary: string } })),
);
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

describe("GET /openapi.json and GET /docs", () => {
  it("serves the description as JSON to a caller with no key or token", async () => {
    const r = await fetch(`${server.url}/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await r.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it("renders a page naming every operation, its method, path and summary, linking to /openapi.json", async () => {
    const r = await fetch(`${server.url}/docs`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await r.text();
    expect(html).toContain('href="/openapi.json"');
    for (const { path, method, op } of operations) {
      const section = html.slice(html.indexOf(`<section class="operation" id="${op.operationId}">`));
      expect(section, op.operationId).toMatch(
        new RegExp(`^<section[^>]*>\\s*<h2><span class="method method-${method}">${method.toUpperCase()}</span><code>`),
      );
      expect(section.slice(0, section.indexOf("</h2>")), op.operationId).toContain(`<code>${path}</code>`);
      expect(section.slice(0, section.indexOf("</section>")), op.operationId).toContain("<h3>Responses</h3>");
    }
  });

  it("loads nothing but its own stylesheet: no script, no other origin, a CSP without inline code", async () => {
    const r = await fetch(`${server.url}/docs`);
    const html = await r.text();
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(html).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    const links = [...html.matchAll(/(?:href|src)="([^"]*)"/g)].map((m) => m[1]!);
    expect(links.filter((l) => !l.startsWith("/") && !l.startsWith("#"))).toEqual([]);
    const css = await fetch(`${server.url}/docs/style.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
  });

  it("escapes every text it puts in the page", () => {
    const hostile = JSON.parse(JSON.stringify(doc)) as typeof doc;
    const op = hostile.paths["/v1/recommend"]!.post!;
    op.summary = '<script>alert("x")</script>';
    op.description = "`<img src=x onerror=alert(1)>` and <b>bold</b>";
    const html = renderReference(hostile, "/docs/style.css", "/openapi.json");
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });
});
