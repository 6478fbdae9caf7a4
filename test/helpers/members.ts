import { randomUUID } from "node:crypto";
import { hashPassword } from "../../src/auth/passwords.js";
import type { Role } from "../../src/auth/roles.js";
import { call, freshIp, type Org } from "./api.js";
import type { TestServer } from "./server.js";

/**
 * Adds an account with the given role straight into the database and logs it in through the API.
 * (The members endpoints arrive with the dashboard issue; the role checks exist already.)
 */
export async function memberToken(server: TestServer, org: Org, role: Role): Promise<string> {
  const email = `${role.toLowerCase()}-${randomUUID()}@example.com`;
  const password = "member password 1";
  await server.db().query("INSERT INTO accounts (id, org_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5)", [
    randomUUID(), org.orgId, email, await hashPassword(password), role,
  ]);
  const r = await call(server.url, "POST", "/auth/login", { json: { email, password }, headers: { "x-forwarded-for": freshIp() } });
  if (r.status !== 200) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
  return r.body.data.token;
}
