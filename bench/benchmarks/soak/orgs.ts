/** The soak's organisations: registered through the API, their synthetic data loaded, their keys swappable. */
import { setTimeout as sleep } from "node:timers/promises";
import { registerOrg } from "../../kit/org.js";
import { loadOrganisation } from "../recommend/loadOrg.js";
import { log } from "../../kit/settings.js";
import type { SyntheticSpec } from "../../kit/synthetic.js";

export type SoakOrg = ReturnType<typeof newOrg>;

const EVENTS_IN_FLIGHT = 4;

/** `generation`: bumped at each key switch; requests in flight are counted per generation, so a rotation can wait for the old ones. */
export function newOrg(orgId: string, token: string, spec: SyntheticSpec, keys: { pk: string; sk: string }) {
  return { orgId, token, spec, keys, generation: 0, inFlight: new Map<number, number>() };
}

export async function setUpOrgs(url: string, count: number): Promise<SoakOrg[]> {
  const orgs: SoakOrg[] = [];
  for (let i = 0; i < count; i++) {
    const { orgId, token, pk, sk } = await registerOrg(url);
    const spec = orgSpec(i);
    log(`organisation ${i + 1}/${count}: loading ${spec.items} items, ${spec.users} users, ${spec.events} events`);
    await loadOrganisation(url, { pk, sk }, spec, EVENTS_IN_FLIGHT);
    orgs.push(newOrg(orgId, token, spec, { pk, sk }));
  }
  return orgs;
}

/** Counts a request in flight under the organisation's current keys; call the returned function when it is answered. */
export function track(org: SoakOrg): () => void {
  const g = org.generation;
  org.inFlight.set(g, (org.inFlight.get(g) ?? 0) + 1);
  return () => void org.inFlight.set(g, org.inFlight.get(g)! - 1);
}

/** Waits until no request sent with generation `g`'s keys is in flight (at most `timeoutMs`); false on timeout. */
export async function drained(org: SoakOrg, g: number, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while ((org.inFlight.get(g) ?? 0) > 0) {
    if (performance.now() > until) return false;
    await sleep(50);
  }
  return true;
}

/**
 * Each organisation's data: a small seeded synthetic catalog (bench/kit/synthetic.ts), loaded before the soak
 * so that every user already has a history and the model is trained. Users and items are few on purpose: the
 * recommender keeps each user's last 512 events, so once the soak's traffic has filled those histories the
 * data held in memory stops growing, and what the server's memory does after that is the server's own doing.
 */
export const USERS = 500;
export const ITEMS = 5_000;
/** 300 events per user before the soak: the live traffic fills the rest of the 512 within a few minutes. */
const PRELOAD_EVENTS = 150_000;

export function orgSpec(org: number): SyntheticSpec {
  return { users: USERS, items: ITEMS, events: PRELOAD_EVENTS, topics: 100, days: 30, seed: 20260301 + org };
}
