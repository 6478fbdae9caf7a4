import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocument } from "../../src/openapi/document.js";
import { call, freshIp, newOrg, viewEvent } from "../helpers/api.js";
import { AnswerChecker } from "../helpers/openapi.js";
import { startServer, type TestServer } from "../helpers/server.js";

const checker = new AnswerChecker(buildDocument());
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "2", AUTH_RATE_LIMIT_MAX: "2" } });
});
afterAll(async () => {
  await server?.cleanup();
});

describe("429 answers against the OpenAPI document", () => {
  it("answers an organisation over its limit 429 rate_limited with the documented headers and Retry-After", async () => {
    const org = await newOrg(server.url);
    for (const status of [202, 202, 429]) {
      const r = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u-1", "i-1") });
      expect(r.status).toBe(status);
      expect(checker.check("POST", "/v1/events/ingest", r)).toEqual([]);
    }
    const limited = await call(server.url, "POST", "/v1/recommend", { apiKey: org.pk, json: { strategy: "popular" } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(checker.check("POST", "/v1/recommend", limited)).toEqual([]);
  });

  it("answers a client IP over the sign-in limit 429 rate_limited as documented", async () => {
    const headers = { "x-forwarded-for": freshIp() };
    const json = { email: "nobody@example.com", password: "not the password" };
    for (const status of [401, 401, 429]) {
      const r = await call(server.url, "POST", "/auth/login", { json, headers });
      expect(r.status).toBe(status);
      expect(checker.check("POST", "/auth/login", r)).toEqual([]);
    }
    const register = await call(server.url, "POST", "/auth/register", { json: { ...json, organisation: "x" }, headers });
    expect(register.status).toBe(429);
    expect(checker.check("POST", "/auth/register", register)).toEqual([]);
  });
});
