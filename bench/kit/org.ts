/** A fresh organisation to ingest into, registered through the server's own API. */
import { randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's JSON answer, whose fields registerOrg reads
async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Registers an organisation and returns its id, the OWNER's dashboard token and a key pair (publishable and secret). */
export async function registerOrg(url: string): Promise<{ orgId: string; token: string; pk: string; sk: string }> {
  const b = randomBytes(3);
  const reg = await post(
    `${url}/auth/register`,
    { email: `bench-${randomUUID()}@example.com`, password: "benchmark password", organisation: "Benchmark" },
    {
      "x-forwarded-for": `10.${b[0]}.${b[1]}.${b[2]}`,
    },
  );
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const keys = await post(`${url}/v1/keys`, {}, { authorization: `Bearer ${reg.body.data.token}` });
  if (keys.status !== 201) throw new Error(`key generation failed: ${keys.status} ${JSON.stringify(keys.body)}`);
  return { orgId: reg.body.data.organisation.id, token: reg.body.data.token, pk: keys.body.data.publishable_key, sk: keys.body.data.secret_key };
}

/** The organisation's number, which the events table is keyed by. */
export async function orgSeq(db: pg.Pool, orgId: string): Promise<number> {
  const { rows } = await db.query<{ seq: number }>("SELECT seq FROM organisations WHERE id = $1", [orgId]);
  return rows[0].seq;
}
