/**
 * Loads the synthetic organisation through the real ingest path: items and users by the secret key in arrays
 * of 10,000, then events by the publishable key in arrays of 1,000 with several requests in flight.
 */
import { randomUUID } from "node:crypto";
import { log } from "../../kit/settings.js";
import { syntheticEvents, syntheticItems, syntheticUsers, type SyntheticEvent, type SyntheticSpec } from "../../kit/synthetic.js";
import { sendInArrays } from "../../kit/api.js";
import pg from "pg";
import { connectionUrl, type Storage } from "../../kit/storage.js";
import { orgSeq, registerOrg } from "../../kit/org.js";
import { withServer } from "../../kit/processes.js";
import type { Manifest } from "./manifest.js";

const CATALOG_CHUNK = 10_000;
const EVENT_CHUNK = 1_000;
const CATALOG_IN_FLIGHT = 2;

/** The event as a client would send it: its own event_id (so a resend is stored once) and its timestamp. */
const eventWire = (e: SyntheticEvent) => ({
  user_id: e.user_id,
  item_id: e.item_id,
  event_family: e.event_family,
  event_name: e.event_name,
  event_id: randomUUID(),
  timestamp: new Date(e.at).toISOString(),
});

export async function loadOrganisation(baseUrl: string, keys: { sk: string; pk: string }, spec: SyntheticSpec, eventsInFlight: number) {
  log(`loading items (${CATALOG_CHUNK.toLocaleString("en-US")} per request, secret key)`);
  const catalog = { size: CATALOG_CHUNK, inFlight: CATALOG_IN_FLIGHT };
  const items = await sendInArrays(`${baseUrl}/v1/items/upsert`, keys.sk, syntheticItems(spec), { ...catalog, label: "items", total: spec.items });
  log(`loading users`);
  const users = await sendInArrays(`${baseUrl}/v1/users/upsert`, keys.sk, syntheticUsers(spec), { ...catalog, label: "users", total: spec.users });
  log(`loading events (${EVENT_CHUNK.toLocaleString("en-US")} per request, ${eventsInFlight} in flight, publishable key)`);
  const events = await sendInArrays(`${baseUrl}/v1/events/ingest`, keys.pk, syntheticEvents(spec), {
    size: EVENT_CHUNK,
    inFlight: eventsInFlight,
    wire: eventWire,
    label: "events",
    total: spec.events,
  });
  return { items, users, events };
}

/** Phase 1: a server on the benchmark's storage, a fresh organisation, the synthetic data sent through ingest. */
export function loadPhase(storage: Storage, spec: SyntheticSpec, eventsInFlight: number): Promise<Manifest> {
  return withServer(storage, { LOG_LEVEL: "info" }, async ({ url }) => {
    const { orgId, pk, sk } = await registerOrg(url);
    const db = new pg.Pool({ connectionString: connectionUrl(storage), max: 1 });
    try {
      const seq = await orgSeq(db, orgId);
      const load = await loadOrganisation(url, { pk, sk }, spec, eventsInFlight);
      // Every 202 is a commit: the stored count must be exactly what was sent.
      const stored = await counts(db, seq);
      log(`stored: ${JSON.stringify(stored)}`);
      if (stored.items !== spec.items || stored.users !== spec.users || stored.events !== spec.events) {
        throw new Error(`stored ${JSON.stringify(stored)}, sent ${spec.items} items, ${spec.users} users, ${spec.events} events`);
      }
      return { spec, orgId, orgSeq: seq, pk, sk, loadedAt: new Date().toISOString(), load };
    } finally {
      await db.end();
    }
  });
}

async function counts(db: pg.Pool, org: number): Promise<{ items: number; users: number; events: number }> {
  const one = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE org = $1`, [org])).rows[0]!.n);
  return { items: await one("items"), users: await one("users"), events: await one("events") };
}
