/**
 * The soak's one key rotation, as the README tells an operator to do it: generate a second pair, move the
 * traffic to it, revoke the old pair once nothing sent with it is in flight, then check that the old keys get
 * 401 at once (same process) while the traffic carries on with the new ones.
 */
import { call } from "../../kit/api.js";
import { drained, type SoakOrg } from "./orgs.js";

export type RotationOutcome = { ok: boolean; steps: string[] };

const DRAIN_TIMEOUT_MS = 30_000;

export async function rotateKeys(url: string, org: SoakOrg): Promise<RotationOutcome> {
  const steps: string[] = [];
  const fail = (why: string) => ({ ok: false, steps: [...steps, why] });
  const listed = await call(`${url}/v1/keys`, { token: org.token });
  const oldPair = (listed.json?.data?.key_pairs as { key_pair_id: string; publishable_key: string }[] | undefined)?.find(
    (p) => p.publishable_key === org.keys.pk,
  );
  if (!oldPair) return fail(`the current pair is not in GET /v1/keys (${listed.status})`);
  const generated = await call(`${url}/v1/keys`, { method: "POST", token: org.token });
  if (generated.status !== 201) return fail(`POST /v1/keys answered ${generated.status}: ${generated.text.slice(0, 200)}`);
  steps.push("new pair generated (201)");

  const old = { ...org.keys, generation: org.generation };
  org.keys = { pk: generated.json.data.publishable_key, sk: generated.json.data.secret_key };
  org.generation++;
  if (!(await drained(org, old.generation, DRAIN_TIMEOUT_MS)))
    return fail(`requests with the old keys still in flight after ${DRAIN_TIMEOUT_MS / 1000}s`);
  steps.push("traffic moved to it, old keys' requests all answered");

  const revoked = await call(`${url}/v1/keys/${oldPair.key_pair_id}/revoke`, { method: "POST", token: org.token });
  if (revoked.status !== 200) return fail(`revoke answered ${revoked.status}`);
  steps.push("old pair revoked (200)");

  const pk = await call(`${url}/v1/events/ingest`, {
    key: old.pk,
    json: { user_id: "user-0", event_family: "engagement", event_name: "view", item_id: "item-0" },
  });
  const sk = await call(`${url}/v1/items/upsert`, { key: old.sk, json: { item_id: "item-0", item_type: "product", status: "active" } });
  steps.push(`old publishable key: ${pk.status} ${pk.json?.error ?? ""}`, `old secret key: ${sk.status} ${sk.json?.error ?? ""}`);
  return { ok: pk.status === 401 && sk.status === 401, steps };
}
