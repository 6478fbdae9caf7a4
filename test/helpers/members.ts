import { randomUUID } from "node:crypto";
import type { Role } from "../../src/auth/roles.js";
import { call, freshIp, type Org } from "./api.js";
import type { TestServer } from "./server.js";

export const MEMBER_PASSWORD = "member password 1";

/** Adds a member through POST /v1/members as the organisation's OWNER; answers its user id and email. */
export async function addMember(server: TestServer, org: Org, role: Role): Promise<{ userId: string; email: string }> {
  const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
  const r = await call(server.url, "POST", "/v1/members", { token: org.token, json: { email, password: MEMBER_PASSWORD, role } });
  if (r.status !== 201) throw new Error(`adding a member failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { userId: r.body.data.user_id, email };
}

export async function loginToken(server: TestServer, email: string, password = MEMBER_PASSWORD): Promise<string> {
  const r = await call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
  if (r.status !== 200) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
  return r.body.data.token;
}

/** A dashboard token for a new member of `org` with the given role. */
export async function memberToken(server: TestServer, org: Org, role: Role): Promise<string> {
  return loginToken(server, (await addMember(server, org, role)).email);
}
