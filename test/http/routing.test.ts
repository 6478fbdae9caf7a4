import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

describe("HTTP front", () => {
  it("answers /healthz and /readyz with the success envelope and no key", async () => {
    const health = await call(server.url, "GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ success: true, data: { status: "up" } });
    const ready = await call(server.url, "GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ success: true, data: { status: "ready", database: "up" } });
  });

  it("answers 404 not_found with the error envelope for an unknown path", async () => {
    const r = await call(server.url, "GET", "/v1/nothing-here");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ success: false, message: expect.any(String), error: "not_found" });
  });

  it("answers 405 method_not_allowed with an Allow header for a known path and the wrong method", async () => {
    const r = await call(server.url, "GET", "/v1/events/ingest");
    expect(r.status).toBe(405);
    expect(r.body.error).toBe("method_not_allowed");
    expect(r.headers.get("allow")).toBe("POST");
  });

  it("serves every operation under /api/v1 and /api/auth exactly as under /v1 and /auth", async () => {
    const a = await call(server.url, "POST", "/api/v1/events/ingest", { json: {} });
    const b = await call(server.url, "POST", "/v1/events/ingest", { json: {} });
    expect(a.status).toBe(401);
    expect(a.body).toEqual(b.body);
    const login = await call(server.url, "POST", "/api/auth/login", {
      json: { email: "nobody@example.com", password: "whatever-long" },
      headers: { "x-forwarded-for": "10.9.9.9" },
    });
    expect(login.status).toBe(401);
    expect(login.body.error).toBe("invalid_credentials");
  });

  it("answers every response as JSON with nosniff", async () => {
    const r = await call(server.url, "GET", "/healthz");
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers a browser's CORS preflight for a known path with the methods and headers it may use", async () => {
    const r = await fetch(`${server.url}/v1/events/ingest`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, x-api-key" },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-methods")).toBe("POST");
    expect(r.headers.get("access-control-allow-headers")).toContain("x-api-key");
    const unknown = await fetch(`${server.url}/v1/nowhere`, { method: "OPTIONS" });
    expect(unknown.status).toBe(404);
  });

  it("lets cross-origin callers read the answer and its rate-limit headers", async () => {
    const r = await call(server.url, "POST", "/v1/events/ingest", { json: {}, apiKey: "svc_pk_" + "x".repeat(40) });
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const health = await call(server.url, "GET", "/healthz");
    expect(health.headers.get("access-control-allow-origin")).toBe("*");
  });
});
