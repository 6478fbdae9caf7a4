import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { eventually, recommended, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { UPLOAD_MAX_BYTES: String(1024 * 1024) } });
});
afterAll(async () => {
  await server?.cleanup();
});

const upload = (token: string, body: string, contentType = "text/csv") =>
  call(server.url, "POST", "/v1/upload/events", { token, raw: body, contentType });

async function storedEvents(org: Org) {
  const { rows } = await server.db().query(
    `SELECT e.event_id, e.user_id, e.item_id, e.event_name, e.weight, e.context, e.occurred_at
     FROM events e JOIN organisations o ON o.seq = e.org WHERE o.id = $1 ORDER BY e.occurred_at, e.user_id`,
    [org.orgId],
  );
  return rows;
}

describe("POST /v1/upload/events", () => {
  it("stores a CSV of past events with their timestamps, other columns as context, and reports bad rows by line", async () => {
    const org = await newOrg(server.url);
    const id = randomUUID();
    const csv = [
      "user_id,event_family,event_name,item_id,timestamp,event_id,channel,qty",
      `u1,conversion,purchase,sku-1,2024-11-02T10:15:00Z,${id},web,2`,
      "u2,engagement,view,sku-2,2024-11-03T08:00:00Z,,app,",
      "u3,engagement,View,sku-3,2024-11-03T09:00:00Z,,web,",
      "u4,engagement,view,sku-3,yesterday,,web,",
      "u5,sometimes,view,sku-3,2024-11-03T09:00:00Z,,web,",
    ].join("\n");
    const r = await upload(org.token, csv);
    expect(r.status).toBe(202);
    expect(r.body.data).toEqual({
      accepted: 2,
      rejected: 3,
      errors: [
        { line: 4, message: expect.stringContaining("event_name: must be lowercase") },
        { line: 5, message: expect.stringContaining("timestamp: must be an ISO 8601 timestamp") },
        { line: 6, message: expect.stringContaining("event_family") },
      ],
    });
    const rows = await storedEvents(org);
    expect(rows.map((e) => [e.user_id, e.item_id, e.event_name, e.weight, e.context, e.occurred_at.toISOString()])).toEqual([
      ["u1", "sku-1", "purchase", 5, { channel: "web", qty: 2 }, "2024-11-02T10:15:00.000Z"],
      ["u2", "sku-2", "view", 1, { channel: "app" }, "2024-11-03T08:00:00.000Z"],
    ]);
    expect(rows[0].event_id).toBe(id);
  });

  it("stores an event resent with the same event_id once, whether by upload or by ingest, and counts it accepted", async () => {
    const org = await newOrg(server.url);
    const id = randomUUID();
    const line = JSON.stringify({
      user_id: "u1",
      event_family: "conversion",
      event_name: "purchase",
      item_id: "a",
      event_id: id,
      timestamp: "2024-05-01T12:00:00Z",
    });
    expect((await upload(org.token, `${line}\n${line}\n`, "application/x-ndjson")).body.data).toEqual({ accepted: 2, rejected: 0, errors: [] });
    expect((await upload(org.token, `${line}\n`, "application/x-ndjson")).body.data.accepted).toBe(1);
    expect((await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: JSON.parse(line) })).status).toBe(202);
    expect(await storedEvents(org)).toHaveLength(1);
  });

  it("reads NDJSON and JSON arrays, and reports a line that is not JSON by its number", async () => {
    const org = await newOrg(server.url);
    const ev = (user: string) =>
      JSON.stringify({ user_id: user, event_family: "engagement", event_name: "view", item_id: "x", timestamp: "2024-01-01T00:00:00Z" });
    const nd = await upload(org.token, [ev("n1"), "{oops", ev("n2")].join("\n"), "application/x-ndjson");
    expect(nd.body.data).toEqual({ accepted: 2, rejected: 1, errors: [{ line: 2, message: expect.stringContaining("not valid JSON") }] });
    const arr = await upload(org.token, `[${ev("a1")},\n${ev("a2")}]`, "application/json");
    expect(arr.body.data).toEqual({ accepted: 2, rejected: 0, errors: [] });
    expect((await storedEvents(org)).map((e) => e.user_id).sort()).toEqual(["a1", "a2", "n1", "n2"]);
  });

  it("makes uploaded past purchases count for recommendations like ingested events", async () => {
    const org = await newOrg(server.url);
    await upsertItems(server.url, org, [{ item_id: "old-best" }, { item_id: "other" }]);
    const at = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const csv = `user_id,event_family,event_name,item_id,timestamp\nb1,conversion,purchase,old-best,${at}\nb2,conversion,purchase,old-best,${at}\n`;
    expect((await upload(org.token, csv)).body.data.accepted).toBe(2);
    const seen = await eventually(
      () => recommended(server.url, org, { strategy: "popular", limit: 1 }),
      (ids) => ids[0] === "old-best",
    );
    expect(seen.value).toEqual(["old-best"]);
  });

  it("answers 400 validation_error naming the missing columns of a CSV header, and stores nothing", async () => {
    const org = await newOrg(server.url);
    const r = await upload(org.token, "user_id,event_name\nu1,view\n");
    expect([r.status, r.body.error]).toEqual([400, "validation_error"]);
    expect(r.body.message).toContain("event_family");
    expect(await storedEvents(org)).toEqual([]);
  });

  it("answers 413 payload_too_large for a file over UPLOAD_MAX_BYTES", async () => {
    const org = await newOrg(server.url);
    const row = "u1,engagement,view,i1,2024-01-01T00:00:00Z\n";
    const r = await upload(
      org.token,
      "user_id,event_family,event_name,item_id,timestamp\n" + row.repeat(Math.ceil((1.2 * 1024 * 1024) / row.length)),
    );
    expect([r.status, r.body.error]).toEqual([413, "payload_too_large"]);
  });

  it("accepts OWNER, ADMIN and DEVELOPER, answers 403 forbidden_role to a MEMBER, and is audited as upload.events", async () => {
    const org = await newOrg(server.url);
    const body = "user_id,event_family,event_name\nu1,engagement,view\n";
    for (const role of ["ADMIN", "DEVELOPER"] as const) expect((await upload(await memberToken(server, org, role), body)).status).toBe(202);
    const member = await upload(await memberToken(server, org, "MEMBER"), body);
    expect([member.status, member.body.error]).toEqual([403, "forbidden_role"]);
    const log = await call(server.url, "GET", "/v1/audit-log", { token: org.token });
    const uploads = log.body.data.entries.filter((e: { action: string }) => e.action === "upload.events");
    expect(uploads.map((e: { target: string }) => e.target)).toEqual(["csv: 1 stored, 0 rejected", "csv: 1 stored, 0 rejected"]);
  });
});
