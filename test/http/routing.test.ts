import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { sendInPieces } from "../helpers/rawHttp.js";
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

  it("leads GET / (and HEAD /) to the dashboard with a 302 and no body", async () => {
    for (const method of ["GET", "HEAD"]) {
      const r = await fetch(`${server.url}/`, { method, redirect: "manual" });
      expect(r.status, method).toBe(302);
      expect(r.headers.get("location"), method).toBe("/dashboard");
      expect(await r.text(), method).toBe("");
    }
    const followed = await fetch(`${server.url}/`);
    expect(followed.url).toBe(`${server.url}/dashboard`);
    expect(followed.headers.get("content-type")).toMatch(/^text\/html/);
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
      headers: {
        origin: "https://shop.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, x-api-key",
      },
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

  it("answers 404 not_found for a path parameter with a malformed percent escape, and keeps serving", async () => {
    const org = await newOrg(server.url);
    const revoke = await call(server.url, "POST", "/v1/keys/%ZZ/revoke", { token: org.token });
    expect(revoke.status).toBe(404);
    expect(revoke.body).toEqual({ success: false, message: expect.any(String), error: "not_found" });
    const patch = await call(server.url, "PATCH", "/v1/members/%E0%A4%A", { token: org.token, json: { role: "MEMBER" } });
    expect(patch.status).toBe(404);
    expect(patch.body.error).toBe("not_found");
    expect((await call(server.url, "GET", "/healthz")).status).toBe(200);
  });

  it("answers HEAD with the GET answer's status and length but no body, and serves the connection's next request", async () => {
    const { port } = new URL(server.url);
    const head = "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    const get = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(head + get));
      let text = "";
      socket.on("data", (d) => {
        text += d.toString("latin1");
        if (text.endsWith("}")) socket.end();
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
      setTimeout(() => socket.destroy(), 5000);
    });
    const [headAnswer, getAnswer] = raw.split(/(?=HTTP\/1\.1 )/);
    expect(headAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect(headAnswer).toMatch(/\r\ncontent-length: 54\r\n/i);
    expect(headAnswer.endsWith("\r\n\r\n")).toBe(true);
    expect(getAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(getAnswer.split("\r\n\r\n")[1])).toMatchObject({ success: true, data: { status: "up" } });
  });

  it("answers a request with Content-Length: 0 whose head arrives in several packets", async () => {
    const org = await newOrg(server.url);
    const head = `POST /v1/events/ingest HTTP/1.1\r\nHost: x\r\nx-api-key: ${org.pk}\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n`;
    const r = await sendInPieces(server.url, [head.slice(0, 20), head.slice(20)]);
    expect(r?.status).toBe(400);
    expect(r?.body).toEqual({ success: false, message: expect.any(String), error: "invalid_json" });
  });
});
