import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocument } from "../../src/openapi/document.js";
import { call, newOrg, viewEvent, type Org } from "../helpers/api.js";
import { AnswerChecker } from "../helpers/openapi.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { startServer, type TestServer } from "../helpers/server.js";

const checker = new AnswerChecker(buildDocument());
let server: TestServer;
let org: Org;

// Embedded, so the test can stop its PostgreSQL; uploads limited to 1 KB so a 413 is cheap to provoke.
beforeAll(async () => {
  server = await startServer({ embedded: true, env: { UPLOAD_MAX_BYTES: "1024" } });
  org = await newOrg(server.url);
});
afterAll(async () => {
  await server?.cleanup();
});

describe("answers the other tests cannot provoke, against the OpenAPI document", () => {
  it("answers an upload over UPLOAD_MAX_BYTES 413 payload_too_large as documented", async () => {
    const csv = "item_id,item_type,status\n" + Array.from({ length: 100 }, (_, i) => `big-${i},product,active`).join("\n") + "\n";
    const r = await call(server.url, "POST", "/v1/upload/items", { token: org.token, raw: csv, contentType: "text/csv" });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe("payload_too_large");
    expect(checker.check("POST", "/v1/upload/items", r)).toEqual([]);
  });

  it("answers 503 unavailable as documented while PostgreSQL is down (ingestion, readiness, dashboard)", async () => {
    await stopPostgres(server);
    try {
      const ingest = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u-1", "i-1") });
      expect([ingest.status, ingest.body.error]).toEqual([503, "unavailable"]);
      expect(checker.check("POST", "/v1/events/ingest", ingest)).toEqual([]);
      const ready = await call(server.url, "GET", "/readyz");
      expect([ready.status, ready.body.error]).toEqual([503, "unavailable"]);
      expect(checker.check("GET", "/readyz", ready)).toEqual([]);
      const keys = await call(server.url, "GET", "/v1/keys", { token: org.token });
      expect([keys.status, keys.body.error]).toEqual([503, "unavailable"]);
      expect(checker.check("GET", "/v1/keys", keys)).toEqual([]);
    } finally {
      await startPostgres(server);
    }
  });
});
