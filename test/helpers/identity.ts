import { createHmac } from "node:crypto";
import { expect } from "vitest";
import { call, type Org } from "./api.js";

/** `user_hash` as a site's server computes it (CONTRACT 7): hex HMAC-SHA256 of the user id, keyed with the identity secret. */
export function userHash(secret: string, userId: string): string {
  return createHmac("sha256", secret).update(userId).digest("hex");
}

/** Generates the organisation's identity secret and turns identity verification on; answers the secret. */
export async function verifyIdentities(base: string, o: Org): Promise<string> {
  const made = await call(base, "POST", "/v1/settings/identity-verification/secret", { token: o.token });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const on = await call(base, "PATCH", "/v1/settings/identity-verification", { token: o.token, json: { enabled: true } });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  return made.body.data.secret as string;
}
