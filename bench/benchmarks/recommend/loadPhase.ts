/** Phase 1: a server on the benchmark's storage, a fresh organisation, the synthetic data sent through ingest. */
import pg from "pg";
import { connectionUrl, type Storage } from "../../kit/storage.js";
import { orgSeq, registerOrg } from "../../kit/org.js";
import { startServer, stopChild, type Child } from "../../kit/processes.js";
import { log } from "../../kit/settings.js";
import type { SyntheticSpec } from "../../kit/synthetic.js";
import { loadOrganisation } from "./loadOrg.js";
import type { Manifest } from "./manifest.js";

export async function loadPhase(storage: Storage, spec: SyntheticSpec, eventsInFlight: number): Promise<Manifest> {
  let server: Child | undefined;
  let db: pg.Pool | undefined;
  try {
    const started = await startServer(storage, { LOG_LEVEL: "info" });
    server = started.server;
    const { orgId, pk, sk } = await registerOrg(started.url);
    db = new pg.Pool({ connectionString: connectionUrl(storage), max: 1 });
    const seq = await orgSeq(db, orgId);
    const load = await loadOrganisation(started.url, { pk, sk }, spec, eventsInFlight);
    // Every 202 is a commit: the stored count must be exactly what was sent.
    const stored = await counts(db, seq);
    log(`stored: ${JSON.stringify(stored)}`);
    if (stored.items !== spec.items || stored.users !== spec.users || stored.events !== spec.events) {
      throw new Error(`stored ${JSON.stringify(stored)}, sent ${spec.items} items, ${spec.users} users, ${spec.events} events`);
    }
    return { spec, orgId, orgSeq: seq, pk, sk, loadedAt: new Date().toISOString(), load };
  } finally {
    await db?.end().catch(() => undefined);
    await stopChild(server);
  }
}

async function counts(db: pg.Pool, org: number): Promise<{ items: number; users: number; events: number }> {
  const one = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE org = $1`, [org])).rows[0]!.n);
  return { items: await one("items"), users: await one("users"), events: await one("events") };
}
