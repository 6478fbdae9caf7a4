/** A fresh organisation to ingest into, registered through the server's own API. */
import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { call } from "./api.js";

/** Registers an organisation and returns its id, the OWNER's dashboard token and a key pair (publishable and secret). */
export async function registerOrg(url: string): Promise<{ orgId: string; token: string; pk: string; sk: string }> {
  const b = randomBytes(3);
  const reg = await call(`${url}/auth/register`, {
    json: { email: `bench-${randomUUID()}@example.com`, password: "benchmark password", organisation: "Benchmark" },
    headers: { "x-forwarded-for": `10.${b[0]}.${b[1]}.${b[2]}` },
  });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${reg.text}`);
  const { token, organisation } = reg.json.data;
  const keys = await call(`${url}/v1/keys`, { json: {}, token });
  if (keys.status !== 201) throw new Error(`key generation failed: ${keys.status} ${keys.text}`);
  return { orgId: organisation.id, token, pk: keys.json.data.publishable_key, sk: keys.json.data.secret_key };
}

/** The organisation's number, which the events table is keyed by. */
export async function orgSeq(db: pg.Pool | pg.Client, orgId: string): Promise<number> {
  const { rows } = await db.query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [orgId]);
  return rows[0].seq;
}
