import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { addMember, loginToken } from "../helpers/members.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.cleanup();
});

/**
 * What a MEMBER may do is CONTRACT 3's table: who am I and list members (any role), and the analytics (not
 * restricted by the contract); nothing that manages keys, members, the audit log or the catalog.
 */
describe("a MEMBER's dashboard", () => {
  it("reads who it is, the member list and the analytics, and gets 403 forbidden_role for everything else, at once after a demotion", async () => {
    const org = await newOrg(server.url);
    const demoted = await addMember(server, org, "ADMIN");
    const token = await loginToken(server, demoted.email);
    const other = await addMember(server, org, "DEVELOPER");
    expect((await call(server.url, "GET", "/v1/audit-log", { token })).status).toBe(200);
    expect((await call(server.url, "PATCH", `/v1/members/${demoted.userId}`, { token: org.token, json: { role: "MEMBER" } })).status).toBe(200);

    for (const path of ["/v1/me", "/v1/members", "/v1/analytics/strategies"]) {
      expect((await call(server.url, "GET", path, { token })).status, path).toBe(200);
    }
    const refused = [
      await call(server.url, "GET", "/v1/keys", { token }),
      await call(server.url, "POST", "/v1/keys", { token }),
      await call(server.url, "POST", `/v1/keys/${org.keyPairId}/revoke`, { token }),
      await call(server.url, "GET", "/v1/audit-log", { token }),
      await call(server.url, "POST", "/v1/members", { token, json: { email: "x@example.com", role: "MEMBER" } }),
      await call(server.url, "PATCH", `/v1/members/${other.userId}`, { token, json: { role: "MEMBER" } }),
      await call(server.url, "DELETE", `/v1/members/${other.userId}`, { token }),
      await call(server.url, "POST", "/v1/upload/items", { token, raw: "item_id\na\n", contentType: "text/csv" }),
    ];
    expect(refused.map((r) => [r.status, r.body.error])).toEqual(Array(refused.length).fill([403, "forbidden_role"]));
  });
});
