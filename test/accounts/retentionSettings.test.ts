import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { startServer, type TestServer } from "../helpers/server.js";

const RETENTION_DAYS = 30;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { EVENTS_RETENTION_DAYS: String(RETENTION_DAYS) } });
});
afterAll(async () => {
  await server?.cleanup();
});

describe("PATCH /v1/settings/retention", () => {
  it("sets and clears the organisation's retention, answers 400 validation_error past the service's, and 403 forbidden_role to a MEMBER", async () => {
    const org = await newOrg(server.url);
    const tooLong = await call(server.url, "PATCH", "/v1/settings/retention", {
      token: org.token,
      json: { events_retention_days: RETENTION_DAYS + 1 },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toBe("validation_error");
    const set = await call(server.url, "PATCH", "/v1/settings/retention", { token: org.token, json: { events_retention_days: 7 } });
    expect(set.body.data).toEqual({ events_retention_days: 7, service_retention_days: RETENTION_DAYS, effective_days: 7 });
    const stored = await server.db().query("SELECT events_retention_days FROM organisations WHERE id = $1", [org.orgId]);
    expect(stored.rows).toEqual([{ events_retention_days: 7 }]);
    const back = await call(server.url, "PATCH", "/v1/settings/retention", { token: org.token, json: { events_retention_days: null } });
    expect(back.body.data).toEqual({ events_retention_days: null, service_retention_days: RETENTION_DAYS, effective_days: RETENTION_DAYS });
    const member = await memberToken(server, org, "MEMBER");
    const refused = await call(server.url, "PATCH", "/v1/settings/retention", { token: member, json: { events_retention_days: 5 } });
    expect([refused.status, refused.body.error]).toEqual([403, "forbidden_role"]);
    expect((await call(server.url, "GET", "/v1/settings/retention", { token: member })).status).toBe(403);
  });
});
