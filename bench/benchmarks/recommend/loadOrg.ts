/**
 * Loads the synthetic organisation through the real ingest path: items and users by the secret key in arrays
 * of 10,000, then events by the publishable key in arrays of 1,000 with several requests in flight. Bodies
 * are built from the generators as they are sent, so at most a few requests' worth exists at a time.
 */
import { randomUUID } from "node:crypto";
import { log } from "../../kit/settings.js";
import { syntheticEvents, syntheticItems, syntheticUsers, type SyntheticEvent, type SyntheticSpec } from "../../kit/synthetic.js";
import { postJson } from "../../kit/api.js";
import pg from "pg";
import { connectionUrl, type Storage } from "../../kit/storage.js";
import { orgSeq, registerOrg } from "../../kit/org.js";
import { withServer } from "../../kit/processes.js";
import type { Manifest } from "./manifest.js";

const CATALOG_CHUNK = 10_000;
const EVENT_CHUNK = 1_000;
const CATALOG_IN_FLIGHT = 2;

export interface PhaseFigures {
  records: number;
  seconds: number;
  perS: number;
  requests: number;
  /** Requests the server pushed back (503/429) and that were sent again. */
  retries: number;
}

export interface LoadFigures {
  items: PhaseFigures;
  users: PhaseFigures;
  events: PhaseFigures;
}

interface Chunk {
  body: string;
  n: number;
}

/** Groups a generator's records into JSON arrays of `size`, each record turned into its wire form. */
function* chunks<T>(records: Iterable<T>, size: number, wire: (r: T) => unknown): Generator<Chunk> {
  let batch: unknown[] = [];
  for (const r of records) {
    batch.push(wire(r));
    if (batch.length === size) {
      yield { body: JSON.stringify(batch), n: size };
      batch = [];
    }
  }
  if (batch.length > 0) yield { body: JSON.stringify(batch), n: batch.length };
}

/** The event as a client would send it: its own event_id (so a resend is stored once) and its timestamp. */
const eventWire = (e: SyntheticEvent) => ({
  user_id: e.user_id,
  item_id: e.item_id,
  event_family: e.event_family,
  event_name: e.event_name,
  event_id: randomUUID(),
  timestamp: new Date(e.at).toISOString(),
});

/** Sends every chunk, `inFlight` at a time; any answer but `expect` stops the load. */
async function send(
  label: string,
  url: string,
  key: string,
  source: Iterator<Chunk>,
  total: number,
  inFlight: number,
  expect: number,
): Promise<PhaseFigures> {
  const started = performance.now();
  let records = 0;
  let requests = 0;
  let retries = 0;
  let nextReport = total / 10;
  const worker = async () => {
    // Generators are synchronous: each worker takes the next chunk in turn, so order is kept per chunk.
    for (let c = source.next(); !c.done; c = source.next()) {
      const r = await postJson(url, key, c.value.body);
      if (r.status !== expect) throw new Error(`${label}: answer ${r.status} (expected ${expect}): ${r.body.slice(0, 500)}`);
      records += c.value.n;
      requests++;
      retries += r.retries;
      if (records >= nextReport) {
        const s = (performance.now() - started) / 1000;
        log(
          `  ${label}: ${records.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} (${Math.round(records / s).toLocaleString("en-US")}/s)`,
        );
        nextReport += total / 10;
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { records, seconds, perS: records / seconds, requests, retries };
}

export async function loadOrganisation(
  baseUrl: string,
  keys: { sk: string; pk: string },
  spec: SyntheticSpec,
  eventsInFlight: number,
): Promise<LoadFigures> {
  log(`loading items (${CATALOG_CHUNK.toLocaleString("en-US")} per request, secret key)`);
  const items = await send(
    "items",
    `${baseUrl}/v1/items/upsert`,
    keys.sk,
    chunks(syntheticItems(spec), CATALOG_CHUNK, (i) => i),
    spec.items,
    CATALOG_IN_FLIGHT,
    202,
  );
  log(`loading users`);
  const users = await send(
    "users",
    `${baseUrl}/v1/users/upsert`,
    keys.sk,
    chunks(syntheticUsers(spec), CATALOG_CHUNK, (u) => u),
    spec.users,
    CATALOG_IN_FLIGHT,
    202,
  );
  log(`loading events (${EVENT_CHUNK.toLocaleString("en-US")} per request, ${eventsInFlight} in flight, publishable key)`);
  const events = await send(
    "events",
    `${baseUrl}/v1/events/ingest`,
    keys.pk,
    chunks(syntheticEvents(spec), EVENT_CHUNK, eventWire),
    spec.events,
    eventsInFlight,
    202,
  );
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
