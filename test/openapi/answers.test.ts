import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocument } from "../../src/openapi/document.js";
import { call, freshIp, newOrg, viewEvent, type ApiResponse, type CallOptions, type Org } from "../helpers/api.js";
import { memberToken, MEMBER_PASSWORD } from "../helpers/members.js";
import { tokenMailedTo } from "../helpers/mail.js";
import { AnswerChecker } from "../helpers/openapi.js";
import { startServer, type TestServer } from "../helpers/server.js";

const METRICS_TOKEN = "metrics-token-for-the-openapi-test";
const doc = buildDocument();
const checker = new AnswerChecker(doc);
let server: TestServer;
let org: Org;
/** Every documented `METHOD path status` a real answer was checked for. */
const answered = new Set<string>();

beforeAll(async () => {
  server = await startServer({ env: { METRICS_TOKEN } });
  org = await newOrg(server.url);
  await untilReady();
});
afterAll(async () => {
  await server?.cleanup();
});

/** Calls the server and checks the answer against the document's response for `operation` (method and documented path). */
async function expectDocumented(operation: string, status: number, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const [method, documented] = operation.split(" ") as [string, string];
  const r = await call(server.url, method, path, opts);
  expect(r.status, `${operation} → ${JSON.stringify(r.body).slice(0, 300)}`).toBe(status);
  expect(checker.check(method, documented, r), operation).toEqual([]);
  answered.add(`${operation} ${status}`);
  return r;
}

/** /readyz answers 503 until the recommender index is loaded, moments after start. */
async function untilReady(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await call(server.url, "GET", "/readyz")).status === 200) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("the server was not ready within 10 s");
}

const ip = () => ({ "x-forwarded-for": freshIp() });
const OVERSIZED = "[" + '"x",'.repeat(1_400_000) + '"x"]';

async function recommendUntilResults(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await call(server.url, "POST", "/v1/recommend", { apiKey: org.pk, json: { strategy: "new-arrivals", limit: 5 } });
    if (r.status === 200 && r.body.data.results.length > 0) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("no recommendation came back within 10 s");
}

describe("real answers against the OpenAPI document", () => {
  it("answers health, readiness, the description and metrics with bodies their schemas accept", async () => {
    await expectDocumented("GET /healthz", 200, "/healthz");
    await expectDocumented("GET /readyz", 200, "/readyz");
    await expectDocumented("GET /openapi.json", 200, "/openapi.json");
    await expectDocumented("GET /metrics", 200, "/metrics", { token: METRICS_TOKEN });
    await expectDocumented("GET /metrics", 401, "/metrics", { token: "not-the-metrics-token" });
  });

  it("answers registration, login and logout, and each of their errors, as documented", async () => {
    const email = `doc-${randomUUID()}@example.com`;
    const json = { email, password: "a long password", organisation: "Documented" };
    await expectDocumented("POST /auth/register", 201, "/auth/register", { json, headers: ip() });
    await expectDocumented("POST /auth/register", 400, "/auth/register", { json: { ...json, password: "short" }, headers: ip() });
    await expectDocumented("POST /auth/register", 400, "/auth/register", { raw: "{", contentType: "application/json", headers: ip() });
    await expectDocumented("POST /auth/register", 415, "/auth/register", { raw: "{}", contentType: "text/plain", headers: ip() });
    await expectDocumented("POST /auth/register", 413, "/auth/register", { raw: OVERSIZED, contentType: "application/json", headers: ip() });
    await expectDocumented("POST /auth/login", 200, "/auth/login", { json: { email, password: json.password }, headers: ip() });
    await expectDocumented("POST /auth/login", 401, "/auth/login", { json: { email, password: "the wrong password" }, headers: ip() });
    await expectDocumented("POST /auth/login", 400, "/auth/login", { json: { email: "nope" }, headers: ip() });
    await expectDocumented("POST /auth/logout", 200, "/auth/logout");
    const session = await expectDocumented("POST /auth/login", 200, "/auth/login", { json: { email, password: json.password }, headers: ip() });
    const token = session.body.data.token as string;
    const changed = { old_password: json.password, new_password: "another long password" };
    await expectDocumented("POST /v1/me/password", 401, "/v1/me/password", { token, json: { ...changed, old_password: "not the password" } });
    await expectDocumented("POST /v1/me/password", 400, "/v1/me/password", { token, json: { ...changed, new_password: "short" } });
    await expectDocumented("POST /v1/me/password", 200, "/v1/me/password", { token, json: changed });
    await expectDocumented("POST /auth/logout", 200, "/auth/logout", { token });
    await expectDocumented("POST /v1/me/password", 401, "/v1/me/password", { token, json: changed });
    await expectDocumented("POST /auth/password-reset", 202, "/auth/password-reset", { json: { email }, headers: ip() });
    await expectDocumented("POST /auth/password-reset", 400, "/auth/password-reset", { json: { email: "nope" }, headers: ip() });
    const reset = await tokenMailedTo(server, email, "Reset your password");
    const confirmed = { token: reset, new_password: "a third long password" };
    await expectDocumented("POST /auth/password-reset/confirm", 400, "/auth/password-reset/confirm", { json: { token: reset }, headers: ip() });
    await expectDocumented("POST /auth/password-reset/confirm", 200, "/auth/password-reset/confirm", { json: confirmed, headers: ip() });
    await expectDocumented("POST /auth/password-reset/confirm", 401, "/auth/password-reset/confirm", { json: confirmed, headers: ip() });
  });

  it("answers the dashboard's account, key and member operations, and their errors, as documented", async () => {
    const member = await memberToken(server, org, "MEMBER");
    await expectDocumented("GET /v1/me", 200, "/v1/me", { token: org.token });
    await expectDocumented("GET /v1/me", 401, "/v1/me");
    const second = await expectDocumented("POST /v1/keys", 201, "/v1/keys", { token: org.token });
    await expectDocumented("POST /v1/keys", 409, "/v1/keys", { token: org.token });
    await expectDocumented("POST /v1/keys", 403, "/v1/keys", { token: member });
    await expectDocumented("GET /v1/keys", 200, "/v1/keys", { token: org.token });
    await expectDocumented("GET /v1/keys", 403, "/v1/keys", { token: member });
    await expectDocumented("POST /v1/keys/{id}/revoke", 200, `/v1/keys/${second.body.data.key_pair_id}/revoke`, { token: org.token });
    await expectDocumented("POST /v1/keys/{id}/revoke", 404, `/v1/keys/${randomUUID()}/revoke`, { token: org.token });
    await expectDocumented("POST /v1/keys/{id}/revoke", 403, `/v1/keys/${org.keyPairId}/revoke`, { token: member });
    await expectDocumented("POST /v1/items/upsert", 401, "/v1/items/upsert", { apiKey: second.body.data.secret_key, json: { item_id: "x" } });

    const added = { email: `dev-${randomUUID()}@example.com`, role: "DEVELOPER" };
    await expectDocumented("POST /v1/members", 201, "/v1/members", { token: org.token, json: added });
    await expectDocumented("POST /v1/members", 400, "/v1/members", { token: org.token, json: { ...added, role: "KING" } });
    await expectDocumented("POST /v1/members", 403, "/v1/members", { token: member, json: { ...added, email: `m-${randomUUID()}@example.com` } });
    const invitation = await tokenMailedTo(server, added.email, "You are invited to an organisation");
    const joined = { token: invitation, password: MEMBER_PASSWORD };
    const accepted = await expectDocumented("POST /auth/invitations/accept", 201, "/auth/invitations/accept", { json: joined, headers: ip() });
    await expectDocumented("POST /auth/invitations/accept", 401, "/auth/invitations/accept", { json: joined, headers: ip() });
    await expectDocumented("POST /auth/invitations/accept", 400, "/auth/invitations/accept", { json: { token: "x" }, headers: ip() });
    await expectDocumented("POST /v1/members", 409, "/v1/members", { token: org.token, json: added });
    const dev = { body: { data: { user_id: accepted.body.data.user.id } } };
    await expectDocumented("GET /v1/members", 200, "/v1/members", { token: member });
    await expectDocumented("PATCH /v1/members/{id}", 200, `/v1/members/${dev.body.data.user_id}`, { token: org.token, json: { role: "ADMIN" } });
    await expectDocumented("PATCH /v1/members/{id}", 404, `/v1/members/${randomUUID()}`, { token: org.token, json: { role: "ADMIN" } });
    const me = await call(server.url, "GET", "/v1/me", { token: org.token });
    await expectDocumented("PATCH /v1/members/{id}", 409, `/v1/members/${me.body.data.user.id}`, { token: org.token, json: { role: "ADMIN" } });
    await expectDocumented("PATCH /v1/members/{id}", 400, `/v1/members/${dev.body.data.user_id}`, { token: org.token, json: { role: 1 } });
    await expectDocumented("DELETE /v1/members/{id}", 403, `/v1/members/${dev.body.data.user_id}`, { token: member });
    await expectDocumented("DELETE /v1/members/{id}", 404, `/v1/members/${randomUUID()}`, { token: org.token });
    await expectDocumented("DELETE /v1/members/{id}", 409, `/v1/members/${me.body.data.user.id}`, { token: org.token });
    await expectDocumented("DELETE /v1/members/{id}", 200, `/v1/members/${dev.body.data.user_id}`, { token: org.token });
    await expectDocumented("GET /v1/audit-log", 200, "/v1/audit-log?limit=5", { token: org.token });
    await expectDocumented("GET /v1/audit-log", 400, "/v1/audit-log?limit=0", { token: org.token });
    await expectDocumented("GET /v1/audit-log", 403, "/v1/audit-log", { token: member });
  });

  it("answers the identity verification settings, and their errors, as documented", async () => {
    const own = await newOrg(server.url);
    const member = await memberToken(server, own, "MEMBER");
    const path = "/v1/settings/identity-verification";
    await expectDocumented("GET /v1/settings/identity-verification", 200, path, { token: own.token });
    await expectDocumented("GET /v1/settings/identity-verification", 403, path, { token: member });
    await expectDocumented("PATCH /v1/settings/identity-verification", 409, path, { token: own.token, json: { enabled: true } });
    await expectDocumented("POST /v1/settings/identity-verification/secret", 201, `${path}/secret`, { token: own.token });
    await expectDocumented("POST /v1/settings/identity-verification/secret", 403, `${path}/secret`, { token: member });
    await expectDocumented("PATCH /v1/settings/identity-verification", 200, path, { token: own.token, json: { enabled: true } });
    await expectDocumented("PATCH /v1/settings/identity-verification", 400, path, { token: own.token, json: { enabled: "yes" } });
    await expectDocumented("POST /v1/recommend", 403, "/v1/recommend", { apiKey: own.pk, json: { strategy: "buy-again", user_id: "u-1" } });
    const identify = { user_id: "u-1", event_family: "system", event_name: "identify", previous_user_id: "anon-1" };
    await expectDocumented("POST /v1/events/ingest", 403, "/v1/events/ingest", { apiKey: own.pk, json: identify });
  });

  it("answers the retention settings, and their errors, as documented", async () => {
    const own = await newOrg(server.url);
    const member = await memberToken(server, own, "MEMBER");
    const path = "/v1/settings/retention";
    await expectDocumented("GET /v1/settings/retention", 200, path, { token: own.token });
    await expectDocumented("GET /v1/settings/retention", 403, path, { token: member });
    await expectDocumented("PATCH /v1/settings/retention", 200, path, { token: own.token, json: { events_retention_days: 30 } });
    await expectDocumented("PATCH /v1/settings/retention", 200, path, { token: own.token, json: { events_retention_days: null } });
    await expectDocumented("PATCH /v1/settings/retention", 400, path, { token: own.token, json: { events_retention_days: 100_000 } });
    await expectDocumented("PATCH /v1/settings/retention", 403, path, { token: member, json: { events_retention_days: 30 } });
    await expectDocumented("PATCH /v1/settings/retention", 401, path, { json: { events_retention_days: 30 } });
  });

  it("answers the rate-limit settings, and their errors, as documented", async () => {
    const own = await newOrg(server.url);
    const member = await memberToken(server, own, "MEMBER");
    const path = "/v1/settings/rate-limit";
    const limit = { rate_limit_max: 5000, rate_limit_window_s: 900 };
    await expectDocumented("GET /v1/settings/rate-limit", 200, path, { token: own.token });
    await expectDocumented("GET /v1/settings/rate-limit", 403, path, { token: member });
    await expectDocumented("PATCH /v1/settings/rate-limit", 200, path, { token: own.token, json: limit });
    await expectDocumented("PATCH /v1/settings/rate-limit", 200, path, {
      token: own.token,
      json: { rate_limit_max: null, rate_limit_window_s: null },
    });
    await expectDocumented("PATCH /v1/settings/rate-limit", 400, path, { token: own.token, json: { rate_limit_max: 0, rate_limit_window_s: 900 } });
    await expectDocumented("PATCH /v1/settings/rate-limit", 403, path, { token: member, json: limit });
    await expectDocumented("PATCH /v1/settings/rate-limit", 401, path, { json: limit });
  });

  it("answers uploads and their errors as documented", async () => {
    const member = await memberToken(server, org, "MEMBER");
    const csv = "item_id,item_type,status,brand\nup-1,product,active,Acme\nup-2,product,gone,Acme\n";
    const r = await expectDocumented("POST /v1/upload/items", 202, "/v1/upload/items", { token: org.token, raw: csv, contentType: "text/csv" });
    expect(r.body.data).toMatchObject({ accepted: 1, rejected: 1 });
    const users = '{"user_id":"uu-1","status":"active","created_at":"2025-01-01T00:00:00Z"}\n';
    await expectDocumented("POST /v1/upload/users", 202, "/v1/upload/users", { token: org.token, raw: users, contentType: "application/x-ndjson" });
    await expectDocumented("POST /v1/upload/items", 400, "/v1/upload/items", { token: org.token, raw: "item_id\nx\n", contentType: "text/csv" });
    await expectDocumented("POST /v1/upload/items", 415, "/v1/upload/items", { token: org.token, raw: csv, contentType: "text/plain" });
    await expectDocumented("POST /v1/upload/users", 403, "/v1/upload/users", { token: member, raw: users, contentType: "application/x-ndjson" });
    await expectDocumented("POST /v1/upload/users", 401, "/v1/upload/users", { raw: users, contentType: "application/x-ndjson" });
    const events =
      "user_id,event_family,event_name,item_id,timestamp\nue-1,conversion,purchase,up-1,2024-11-02T10:15:00Z\nue-2,engagement,view,up-1,yesterday\n";
    const e = await expectDocumented("POST /v1/upload/events", 202, "/v1/upload/events", { token: org.token, raw: events, contentType: "text/csv" });
    expect(e.body.data).toMatchObject({ accepted: 1, rejected: 1 });
    await expectDocumented("POST /v1/upload/events", 400, "/v1/upload/events", { token: org.token, raw: "user_id\nx\n", contentType: "text/csv" });
    await expectDocumented("POST /v1/upload/events", 403, "/v1/upload/events", { token: member, raw: events, contentType: "text/csv" });
  });

  it("answers ingestion and each key, body and validation error as documented", async () => {
    const item = { item_id: "doc-1", item_type: "product", status: "active", attributes: { brand: "Acme" } };
    await expectDocumented("POST /v1/items/upsert", 202, "/v1/items/upsert", { apiKey: org.sk, json: [item, { ...item, item_id: "doc-2" }] });
    await expectDocumented("POST /v1/items/upsert", 403, "/v1/items/upsert", { apiKey: org.pk, json: item });
    await expectDocumented("POST /v1/items/upsert", 401, "/v1/items/upsert", { json: item });
    await expectDocumented("POST /v1/items/upsert", 401, "/v1/items/upsert", { apiKey: "not-a-key", json: item });
    await expectDocumented("POST /v1/items/upsert", 401, "/v1/items/upsert", { apiKey: `svc_sk_${"0".repeat(40)}`, json: item });
    await expectDocumented("POST /v1/items/upsert", 400, "/v1/items/upsert", { apiKey: org.sk, json: { ...item, status: "sold" } });
    await expectDocumented("POST /v1/items/upsert", 400, "/v1/items/upsert", { apiKey: org.sk, raw: "[{", contentType: "application/json" });
    await expectDocumented("POST /v1/items/upsert", 413, "/v1/items/upsert", { apiKey: org.sk, raw: OVERSIZED, contentType: "application/json" });
    await expectDocumented("POST /v1/items/upsert", 415, "/v1/items/upsert", { apiKey: org.sk, raw: "{}", contentType: "text/csv" });
    const full = await newOrg(server.url);
    await server.db().query("UPDATE organisations SET max_items = 0 WHERE id = $1", [full.orgId]);
    const refused = await expectDocumented("POST /v1/items/upsert", 403, "/v1/items/upsert", { apiKey: full.sk, json: item });
    expect(refused.body.error).toBe("quota_exceeded");
    const user = { user_id: "doc-u", status: "active", created_at: "2025-01-01T00:00:00Z" };
    await expectDocumented("POST /v1/users/upsert", 202, "/v1/users/upsert", { apiKey: org.sk, json: user });
    await expectDocumented("POST /v1/users/upsert", 403, "/v1/users/upsert", { apiKey: org.pk, json: user });
    await expectDocumented("POST /v1/events/ingest", 202, "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("doc-u", "doc-1") });
    await expectDocumented("POST /v1/events/ingest", 403, "/v1/events/ingest", { apiKey: org.sk, json: viewEvent("doc-u", "doc-1") });
    await expectDocumented("POST /v1/events/ingest", 400, "/v1/events/ingest", { apiKey: org.pk, json: [] });
  });

  it("answers recommend with results, and its errors, as documented", async () => {
    await call(server.url, "POST", "/v1/items/upsert", { apiKey: org.sk, json: { item_id: "rec-1", item_type: "product", status: "active" } });
    await recommendUntilResults();
    const r = await expectDocumented("POST /v1/recommend", 200, "/v1/recommend", { apiKey: org.pk, json: { strategy: "new-arrivals", limit: 5 } });
    expect(r.body.data.results.length).toBeGreaterThan(0);
    await expectDocumented("POST /v1/recommend", 200, "/v1/recommend", {
      apiKey: org.pk,
      json: { strategy: "similar", context_item_id: "nothing-like-it" },
    });
    await expectDocumented("POST /v1/recommend", 400, "/v1/recommend", { apiKey: org.pk, json: { strategy: "popular", limit: 0 } });
    await expectDocumented("POST /v1/recommend", 403, "/v1/recommend", { apiKey: org.sk, json: { strategy: "popular" } });
    await expectDocumented("POST /v1/recommend", 401, "/v1/recommend", { json: { strategy: "popular" } });
  });

  it("answers erasure and its errors as documented", async () => {
    const r = await expectDocumented("POST /v1/users/erase", 202, "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["doc-erased"] } });
    await expectDocumented("POST /v1/users/erase", 400, "/v1/users/erase", { apiKey: org.sk, json: { user_ids: [] } });
    await expectDocumented("POST /v1/users/erase", 403, "/v1/users/erase", { apiKey: org.pk, json: { user_ids: ["doc-erased"] } });
    await expectDocumented("POST /v1/users/erase", 401, "/v1/users/erase", { json: { user_ids: ["doc-erased"] } });
    await expectDocumented("GET /v1/users/erase/{erasure_id}", 200, `/v1/users/erase/${r.body.data.erasure_id}`, { token: org.token });
    await expectDocumented("GET /v1/users/erase/{erasure_id}", 404, `/v1/users/erase/${randomUUID()}`, { apiKey: org.sk });
  });

  it("answers experiments, their results, a recommendation under one, and their errors as documented", async () => {
    const body = {
      name: "documented",
      scenario: "doc-home",
      variants: [
        { name: "A", share: 0.5 },
        { name: "B", share: 0.5, strategy: "trending" },
      ],
      holdout: 0.1,
    };
    const r = await expectDocumented("POST /v1/experiments", 201, "/v1/experiments", { token: org.token, json: body });
    const id = r.body.data.experiment_id;
    await expectDocumented("POST /v1/experiments", 409, "/v1/experiments", { apiKey: org.sk, json: body });
    await expectDocumented("POST /v1/experiments", 400, "/v1/experiments", { token: org.token, json: { ...body, variants: body.variants.slice(1) } });
    await expectDocumented("POST /v1/experiments", 403, "/v1/experiments", { apiKey: org.pk, json: body });
    await expectDocumented("POST /v1/experiments", 401, "/v1/experiments", { json: body });
    const served = await expectDocumented("POST /v1/recommend", 200, "/v1/recommend", {
      apiKey: org.pk,
      json: { strategy: "new-arrivals", user_id: "doc-user", scenario: "doc-home" },
    });
    expect(served.body.data.experiment.id).toBe(id);
    await expectDocumented("GET /v1/experiments", 200, "/v1/experiments", { apiKey: org.sk });
    await expectDocumented("GET /v1/experiments/{experiment_id}", 200, `/v1/experiments/${id}`, { token: org.token });
    await expectDocumented("GET /v1/experiments/{experiment_id}", 404, `/v1/experiments/${randomUUID()}`, { token: org.token });
    await expectDocumented("GET /v1/analytics/experiments/{experiment_id}", 200, `/v1/analytics/experiments/${id}`, { token: org.token });
    await expectDocumented("GET /v1/analytics/experiments/{experiment_id}", 404, `/v1/analytics/experiments/${randomUUID()}`, { apiKey: org.sk });
    await expectDocumented("POST /v1/experiments/{experiment_id}/stop", 200, `/v1/experiments/${id}/stop`, { token: org.token });
    await expectDocumented("POST /v1/experiments/{experiment_id}/stop", 404, `/v1/experiments/nope/stop`, { token: org.token });
  });

  it("answers analytics and its errors as documented", async () => {
    await expectDocumented("GET /v1/analytics/strategies", 200, "/v1/analytics/strategies", { token: org.token });
    await expectDocumented("GET /v1/analytics/strategies", 200, "/v1/analytics/strategies?granularity=day", { token: org.token });
    await expectDocumented("GET /v1/analytics/strategies", 400, "/v1/analytics/strategies?from=yesterday", { token: org.token });
    await expectDocumented("GET /v1/analytics/strategies", 401, "/v1/analytics/strategies");
  });

  it("answers the rules operations and their errors as documented", async () => {
    const rule = { name: "doc", enabled: true, action: "promote", share: 0.2, items: { brand: "A", item_id: ["i-1"] }, scenarios: ["home"] };
    const r = await expectDocumented("POST /v1/rules", 201, "/v1/rules", { apiKey: org.sk, json: rule });
    await expectDocumented("POST /v1/rules", 400, "/v1/rules", { apiKey: org.sk, json: { ...rule, share: 2 } });
    await expectDocumented("POST /v1/rules", 403, "/v1/rules", { apiKey: org.pk, json: rule });
    await expectDocumented("POST /v1/rules", 401, "/v1/rules", { json: rule });
    await expectDocumented("GET /v1/rules", 200, "/v1/rules", { token: org.token });
    const path = `/v1/rules/${r.body.data.rule_id}`;
    await expectDocumented("PUT /v1/rules/{rule_id}", 200, path, { token: org.token, json: { ...rule, enabled: false } });
    await expectDocumented("PUT /v1/rules/{rule_id}", 404, `/v1/rules/${randomUUID()}`, { apiKey: org.sk, json: rule });
    await expectDocumented("DELETE /v1/rules/{rule_id}", 200, path, { apiKey: org.sk });
    await expectDocumented("DELETE /v1/rules/{rule_id}", 404, path, { apiKey: org.sk });
  });

  it("answers the recommend preview and its errors as documented", async () => {
    await expectDocumented("POST /v1/recommend/preview", 200, "/v1/recommend/preview", { token: org.token, json: { strategy: "popular", limit: 2 } });
    await expectDocumented("POST /v1/recommend/preview", 400, "/v1/recommend/preview", { token: org.token, json: { strategy: "popular", limit: 0 } });
    await expectDocumented("POST /v1/recommend/preview", 401, "/v1/recommend/preview", { apiKey: org.pk, json: { strategy: "popular" } });
  });

  it("answers an unknown path 404 and a known path's other method 405 as the shared responses say", async () => {
    const missing = await call(server.url, "GET", "/v1/no-such-thing");
    expect(missing.status).toBe(404);
    expect(checker.checkShared("NotFound", missing)).toEqual([]);
    const wrongMethod = await call(server.url, "DELETE", "/v1/recommend");
    expect(wrongMethod.status).toBe(405);
    expect(checker.checkShared("MethodNotAllowed", wrongMethod)).toEqual([]);
  });

  it("answers every documented operation with a body its success schema accepts", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => {
        const success = Object.keys(op.responses as object).find((s) => s.startsWith("2"));
        return `${method.toUpperCase()} ${path} ${success}`;
      }),
    );
    expect(operations.filter((o) => !answered.has(o))).toEqual([]);
  });
});

describe("the answer check", () => {
  it("refuses answers that do not match the document, so that it cannot pass vacuously", async () => {
    const me = await call(server.url, "GET", "/v1/me", { token: org.token });
    expect(checker.check("GET", "/v1/me", me)).toEqual([]);
    const withoutEmail = { ...me, body: { ...me.body, data: { ...me.body.data, user: { id: me.body.data.user.id, role: "OWNER" } } } };
    expect(checker.check("GET", "/v1/me", withoutEmail)).not.toEqual([]);
    expect(checker.check("GET", "/v1/me", { ...me, body: { ...me.body, extra: 1 } })).not.toEqual([]);
    const unauthorized = await call(server.url, "GET", "/v1/me");
    expect(checker.check("GET", "/v1/me", { ...unauthorized, body: { ...unauthorized.body, error: "conflict" } })).not.toEqual([]);
    expect(checker.check("GET", "/v1/me", { ...unauthorized, status: 418 })).not.toEqual([]);
    const ingest = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u", "i") });
    const headers = new Headers(ingest.headers);
    headers.delete("RateLimit-Remaining");
    expect(checker.check("POST", "/v1/events/ingest", { ...ingest, headers })).not.toEqual([]);
  });
});
