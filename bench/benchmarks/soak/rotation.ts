/**
 * The soak's one key rotation, as the README tells an operator to do it: generate a second pair, move the
 * traffic to it, revoke the old pair once nothing sent with it is in flight, then check that the old keys get
 * 401 at once (same process) while the traffic carries on with the new ones.
 */
import { dashboardCall, keyCall } from "./dashboard.js";
import { drained, type SoakOrg } from "./orgs.js";

export interface RotationOutcome {
  ok: boolean;
  steps: string[];
}

const DRAIN_TIMEOUT_MS = 30_000;

export async function rotateKeys(url: string, org: SoakOrg): Promise<RotationOutcome> {
  const steps: string[] = [];
  const fail = (why: string) => ({ ok: false, steps: [...steps, why] });
  const listed = await dashboardCall(url, org.token, "GET", "/v1/keys");
  const oldPair = (listed.body?.data?.key_pairs as { key_pair_id: string; publishable_key: string }[] | undefined)?.find(
    (p) => p.publishable_key === org.keys.pk,
  );
  if (!oldPair) return fail(`the current pair is not in GET /v1/keys (${listed.status})`);
  const generated = await dashboardCall(url, org.token, "POST", "/v1/keys");
  if (generated.status !== 201) return fail(`POST /v1/keys answered ${generated.status}: ${JSON.stringify(generated.body).slice(0, 200)}`);
  steps.push("new pair generated (201)");

  const old = { ...org.keys, generation: org.generation };
  org.keys = { pk: generated.body.data.publishable_key, sk: generated.body.data.secret_key };
  org.generation++;
  if (!(await drained(org, old.generation, DRAIN_TIMEOUT_MS)))
    return fail(`requests with the old keys still in flight after ${DRAIN_TIMEOUT_MS / 1000}s`);
  steps.push("traffic moved to it, old keys' requests all answered");

  const revoked = await dashboardCall(url, org.token, "POST", `/v1/keys/${oldPair.key_pair_id}/revoke`);
  if (revoked.status !== 200) return fail(`revoke answered ${revoked.status}`);
  steps.push("old pair revoked (200)");

  const pk = await keyCall(
    url,
    old.pk,
    "/v1/events/ingest",
    '{"user_id":"user-0","event_family":"engagement","event_name":"view","item_id":"item-0"}',
  );
  const sk = await keyCall(url, old.sk, "/v1/items/upsert", '{"item_id":"item-0","item_type":"product","status":"active"}');
  steps.push(`old publishable key: ${pk.status} ${pk.body?.error ?? ""}`, `old secret key: ${sk.status} ${sk.body?.error ?? ""}`);
  return { ok: pk.status === 401 && sk.status === 401, steps };
}
