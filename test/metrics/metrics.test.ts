import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { event, eventually } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { parsePrometheusText, samplesOf, valueOf, type Exposition } from "./prometheusText.js";

const TOKEN = randomBytes(24).toString("base64url");
const PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
const SHARD_METRICS = [
  "recsvc_recommender_restarts_total",
  "recsvc_recommender_records_skipped_total",
  "recsvc_recommender_asks_expired_total",
  "recsvc_model_trainings_total",
  "recsvc_model_trainings_budgeted_total",
  "recsvc_model_training_seconds_count",
  "recsvc_index_organisations",
  "recsvc_index_items",
  "recsvc_index_users",
  "recsvc_index_bytes",
];

let plain: TestServer;
let server: TestServer;
let listenerUrl: string;

beforeAll(async () => {
  [plain, server] = await Promise.all([startServer(), startServer({ env: { METRICS_TOKEN: TOKEN, METRICS_PORT: "0" } })]);
  listenerUrl = await printedMetricsUrl(server);
});
afterAll(async () => {
  await Promise.all([plain?.cleanup(), server?.cleanup()]);
});

/** The token-free listener's URL, from the line the server prints once it listens. */
async function printedMetricsUrl(s: TestServer): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const m = /metrics listening on (http:\/\/\S+)/.exec(s.output());
    if (m) return m[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no metrics listener line in:\n${s.output()}`);
}

async function scrape(url = `${server.url}/metrics`, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<Exposition> {
  const r = await fetch(url, { headers });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe(PROMETHEUS_TYPE);
  return parsePrometheusText(await r.text());
}

function requests(e: Exposition, route: string, method: string, status: number): number {
  return valueOf(e, "recsvc_http_requests_total", { route, method, status: String(status) });
}

describe("GET /metrics on the service's port without METRICS_TOKEN", () => {
  it("answers 404 not_found, as for any unknown path, even with a bearer token", async () => {
    const headerSets: Array<Record<string, string>> = [{}, { authorization: `Bearer ${TOKEN}` }];
    for (const headers of headerSets) {
      const r = await call(plain.url, "GET", "/metrics", { headers });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, message: expect.any(String), error: "not_found" });
    }
  });

  it("opens no metrics listener without METRICS_PORT", () => {
    expect(plain.output()).not.toMatch(/metrics listening on/);
  });
});

describe("GET /metrics on the service's port with METRICS_TOKEN", () => {
  it("answers 401 invalid_token without an Authorization header", async () => {
    const r = await call(server.url, "GET", "/metrics");
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, message: expect.any(String), error: "invalid_token" });
  });

  it("answers 401 invalid_token for a wrong token, a prefix of the token, or another scheme", async () => {
    for (const authorization of [
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${randomBytes(24).toString("base64url")}`,
      `Basic ${TOKEN}`,
    ]) {
      const r = await call(server.url, "GET", "/metrics", { headers: { authorization } });
      expect(r.status, authorization).toBe(401);
      expect(r.body).toEqual({ success: false, message: expect.any(String), error: "invalid_token" });
    }
  });

  it("answers 200 with Prometheus text in which every line parses and every metric has a type", async () => {
    const e = await scrape();
    expect(e.types.get("recsvc_http_requests_total")).toBe("counter");
    expect(e.types.get("recsvc_http_request_duration_seconds")).toBe("histogram");
    expect(e.types.get("recsvc_ingest_batch_records")).toBe("histogram");
    expect(e.types.get("recsvc_ingest_queue_records")).toBe("gauge");
    expect([...e.types.keys()].every((name) => name.startsWith("recsvc_"))).toBe(true);
  });

  it("answers 404 not_found under /api: the metrics path is /metrics only", async () => {
    const r = await call(server.url, "GET", "/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("not_found");
  });

  it("counts ingest and recommend answers by route pattern, method and status, /api aliases under their /v1 form", async () => {
    const org = await newOrg(server.url);
    const before = await scrape();
    const single = await call(server.url, "POST", "/v1/events/ingest", { json: [event({ user: "u1", item: "i1" })], apiKey: org.pk });
    const aliased = await call(server.url, "POST", "/api/v1/events/ingest", { json: [event({ user: "u2", item: "i1" })], apiKey: org.pk });
    const refused = await call(server.url, "POST", "/v1/events/ingest", { json: [{ user_id: "u3" }], apiKey: org.pk });
    const recommended = await call(server.url, "POST", "/v1/recommend", { json: { strategy: "popular" }, apiKey: org.pk });
    const wrongMethod = await call(server.url, "DELETE", "/v1/recommend");
    expect([single.status, aliased.status, refused.status, recommended.status, wrongMethod.status]).toEqual([202, 202, 400, 200, 405]);
    const after = await scrape();

    expect(requests(after, "/v1/events/ingest", "POST", 202) - requests(before, "/v1/events/ingest", "POST", 202)).toBe(2);
    expect(requests(after, "/v1/events/ingest", "POST", 400) - requests(before, "/v1/events/ingest", "POST", 400)).toBe(1);
    expect(requests(after, "/v1/recommend", "POST", 200) - requests(before, "/v1/recommend", "POST", 200)).toBe(1);
    expect(requests(after, "/v1/recommend", "DELETE", 405) - requests(before, "/v1/recommend", "DELETE", 405)).toBe(1);
    expect(samplesOf(after, "recsvc_http_requests_total").filter((s) => s.labels.route.startsWith("/api"))).toEqual([]);

    const durations = (e: Exposition, le: string) =>
      valueOf(e, "recsvc_http_request_duration_seconds_bucket", { route: "/v1/events/ingest", method: "POST", le });
    const count = (e: Exposition) => valueOf(e, "recsvc_http_request_duration_seconds_count", { route: "/v1/events/ingest", method: "POST" });
    expect(count(after) - count(before)).toBe(3);
    expect(durations(after, "+Inf")).toBe(count(after));
    expect(valueOf(after, "recsvc_http_request_duration_seconds_sum", { route: "/v1/events/ingest", method: "POST" })).toBeGreaterThan(0);
    const buckets = samplesOf(after, "recsvc_http_request_duration_seconds_bucket").filter(
      (s) => s.labels.route === "/v1/events/ingest" && s.labels.method === "POST",
    );
    expect(buckets.map((b) => b.value)).toEqual([...buckets.map((b) => b.value)].sort((a, b) => a - b));
  });

  it("counts each ingest batch, its records and its commit time, and no failed batch", async () => {
    const org = await newOrg(server.url);
    const before = await scrape();
    const r = await call(server.url, "POST", "/v1/events/ingest", {
      json: ["a", "b", "c"].map((user) => event({ user, item: "i1" })),
      apiKey: org.pk,
    });
    expect(r.status).toBe(202); // durable: the batch is committed before the answer
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta("recsvc_ingest_batches_total")).toBe(1);
    expect(delta("recsvc_ingest_batch_records_count")).toBe(1);
    expect(delta("recsvc_ingest_batch_records_sum")).toBe(3);
    expect(delta("recsvc_ingest_batch_records_bucket", { le: "2" })).toBe(0);
    expect(delta("recsvc_ingest_batch_records_bucket", { le: "5" })).toBe(1);
    expect(delta("recsvc_ingest_commit_seconds_count")).toBe(1);
    expect(delta("recsvc_ingest_commit_seconds_sum")).toBeGreaterThan(0);
    for (const reason of ["unavailable", "rejected"]) {
      expect(samplesOf(after, "recsvc_ingest_batches_failed_total").find((s) => s.labels.reason === reason)?.value).toBe(0);
    }
  });

  it("labels paths that match no route as unmatched, never with the raw path", async () => {
    const before = await scrape();
    const unique = randomUUID();
    for (const path of [`/v1/nothing-${unique}`, `/api/v1/nothing-${unique}`, `/${unique}`]) {
      expect((await call(server.url, "GET", path)).status).toBe(404);
    }
    const r = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await r.text();
    expect(text).not.toContain(unique);
    expect(requests(parsePrometheusText(text), "unmatched", "GET", 404) - requests(before, "unmatched", "GET", 404)).toBe(3);
  });

  it("reports the queue depths, each shard's recommender series from zero, and the process metrics", async () => {
    const e = await scrape();
    expect(samplesOf(e, "recsvc_ingest_queue_records")).toEqual([{ name: "recsvc_ingest_queue_records", labels: {}, value: 0 }]);
    expect(samplesOf(e, "recsvc_recommend_waiting_requests")).toEqual([{ name: "recsvc_recommend_waiting_requests", labels: {}, value: 0 }]);
    for (const name of SHARD_METRICS) {
      expect(
        samplesOf(e, name)
          .map((s) => s.labels.shard)
          .sort(),
        name,
      ).toEqual(["0", "1"]); // RECOMMEND_SHARDS=2
    }
    expect(samplesOf(e, "recsvc_recommender_restarts_total").map((s) => s.value)).toEqual([0, 0]);
    expect(valueOf(e, "recsvc_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(valueOf(e, "recsvc_process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  it("reports each model training, its length, and the index sizes of the organisation's shard", async () => {
    const org = await newOrg(server.url);
    const { rows } = await server.db().query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [org.orgId]);
    const shard = String(rows[0]!.seq % 2);
    const before = await scrape();
    const items = Array.from({ length: 12 }, (_, k) => ({ item_id: `m-${k}`, item_type: "product", status: "active" }));
    expect((await call(server.url, "POST", "/v1/items/upsert", { json: items, apiKey: org.sk })).status).toBe(202);
    const views = Array.from({ length: 40 }, (_, k) => event({ user: `mu-${k % 8}`, item: `m-${k % 12}` }));
    expect((await call(server.url, "POST", "/v1/events/ingest", { json: views, apiKey: org.pk })).status).toBe(202);
    // Another organisation's training on this shard may finish first and report sizes without this one's
    // records: wait for the training whose report counts them.
    const { value: after } = await eventually(
      scrape,
      (e) =>
        valueOf(e, "recsvc_model_trainings_total", { shard }) > valueOf(before, "recsvc_model_trainings_total", { shard }) &&
        valueOf(e, "recsvc_index_items", { shard }) - valueOf(before, "recsvc_index_items", { shard }) >= 12,
      15_000,
    );
    expect(valueOf(after, "recsvc_model_training_seconds_count", { shard })).toBeGreaterThan(
      valueOf(before, "recsvc_model_training_seconds_count", { shard }),
    );
    expect(valueOf(after, "recsvc_model_training_seconds_sum", { shard })).toBeGreaterThan(
      valueOf(before, "recsvc_model_training_seconds_sum", { shard }),
    );
    // The sizes go out with each training: this organisation's items and users are counted.
    expect(valueOf(after, "recsvc_index_items", { shard }) - valueOf(before, "recsvc_index_items", { shard })).toBeGreaterThanOrEqual(12);
    expect(valueOf(after, "recsvc_index_users", { shard }) - valueOf(before, "recsvc_index_users", { shard })).toBeGreaterThanOrEqual(8);
    expect(valueOf(after, "recsvc_index_organisations", { shard })).toBeGreaterThan(valueOf(before, "recsvc_index_organisations", { shard }));
    expect(valueOf(after, "recsvc_index_bytes", { shard })).toBeGreaterThan(0);
  });
});

describe("the METRICS_PORT listener", () => {
  it("prints its URL on METRICS_HOST after the service's own line", () => {
    expect(listenerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(server.output().indexOf("metrics listening on")).toBeGreaterThan(server.output().indexOf("recommendation service listening on"));
    expect(new URL(listenerUrl).port).not.toBe(new URL(server.url).port);
  });

  it("answers GET /metrics without a token, and its own scrapes are not counted as service requests", async () => {
    const first = await scrape(listenerUrl, {});
    const second = await scrape(listenerUrl, {});
    const total = (e: Exposition) => samplesOf(e, "recsvc_http_requests_total").reduce((sum, s) => sum + s.value, 0);
    expect(total(first)).toBeGreaterThan(0);
    expect(total(second)).toBe(total(first));
  });

  it("answers 404 not_found to anything but GET /metrics", async () => {
    const base = new URL(listenerUrl).origin;
    for (const [method, path] of [
      ["POST", "/metrics"],
      ["DELETE", "/metrics"],
      ["GET", "/healthz"],
      ["GET", "/metrics/x"],
      ["POST", "/v1/recommend"],
      ["GET", "/"],
    ]) {
      const r = await call(base, method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ success: false, message: expect.any(String), error: "not_found" });
    }
  });

  it("closes with the service on SIGTERM, which still exits 0", async () => {
    expect(await server.stop()).toBe(0);
    await expect(fetch(listenerUrl)).rejects.toThrow();
  });
});

describe("metrics settings", () => {
  it.each([
    ["shorter than 16 characters", "too-short"],
    ["with a space, which no Authorization header could carry", "sixteen chars or more but spaced"],
  ])("refuses to start with a METRICS_TOKEN %s", async (_, token) => {
    const main = fileURLToPath(new URL("../../dist/src/main.js", import.meta.url));
    // The settings are read before any database is touched; the URL only keeps a passing check from reaching one.
    const env = { ...process.env, METRICS_TOKEN: token, PORT: "0", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" };
    const child = spawn(process.execPath, [main], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(out).toMatch(/invalid settings: METRICS_TOKEN/);
    expect(out).not.toMatch(/listening on/);
  });
});
