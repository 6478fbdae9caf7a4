import { randomUUID } from "node:crypto";
import type { Role } from "../../src/auth/roles.js";
import { call, freshIp, type Org } from "./api.js";
import { tokenMailedTo } from "./mail.js";
import type { TestServer } from "./server.js";

export const MEMBER_PASSWORD = "member password 1";
export const INVITATION_SUBJECT = "You are invited to an organisation";

/** Invites `email` through POST /v1/members as `token`'s account; answers the mailed invitation token. */
export async function invite(server: TestServer, token: string, email: string, role: Role): Promise<string> {
  const r = await call(server.url, "POST", "/v1/members", { token, json: { email, role } });
  if (r.status !== 201) throw new Error(`inviting a member failed: ${r.status} ${JSON.stringify(r.body)}`);
  return tokenMailedTo(server, email, INVITATION_SUBJECT);
}

/** Accepts an invitation with MEMBER_PASSWORD; answers the new member's user id and dashboard token. */
export async function accept(server: TestServer, invitation: string): Promise<{ userId: string; token: string }> {
  const r = await call(server.url, "POST", "/auth/invitations/accept", {
    json: { token: invitation, password: MEMBER_PASSWORD },
    headers: { "x-forwarded-for": freshIp() },
  });
  if (r.status !== 201) throw new Error(`accepting an invitation failed: ${r.status} ${JSON.stringify(r.body)}`);
  return { userId: r.body.data.user.id, token: r.body.data.token };
}

/** Adds a member as the organisation's OWNER: an invitation (its mail read from the server's log), accepted. */
export async function addMember(server: TestServer, org: Org, role: Role): Promise<{ userId: string; email: string }> {
  const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
  const { userId } = await accept(server, await invite(server, org.token, email, role));
  return { userId, email };
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
