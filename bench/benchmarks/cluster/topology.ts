/**
 * The two setups on one PostgreSQL: one process alone (CLUSTER=0), and two processes with CLUSTER=1 behind
 * HAProxy (docs/haproxy.cfg). All three stay up for the whole run, so the setups can be alternated without
 * restarts; whichever setup is idle only waits. A process without CLUSTER=1 must be alone on its database
 * (src/db/instanceLock.ts), so the pair run on a copy of the loaded database (CREATE DATABASE … TEMPLATE, made
 * before any process connects), on the same server. Each process loaded the recommend organisation from the
 * tables at start; the lone process trained its model on all of it, and of the pair one trained it and the
 * other loaded that model.
 */
import { startEmbeddedDatabase } from "../../../src/db/embedded.js";
import { setLogLevel } from "../../../src/wire/log.js";
import { adminQuery, connectionUrl, type Storage } from "../../kit/storage.js";
import { startServer, stopChild, type Child } from "../../kit/processes.js";
import { waitForLog } from "../../kit/serverLog.js";
import { log } from "../../kit/settings.js";
import { startHaproxy } from "./haproxy.js";

/** Info lines carry the model's "trained" line (or, in the pair, "loaded"); nothing is logged per request. */
const LOG_ENV = { LOG_LEVEL: "info" };
const PAIR_MODEL_LINES = ["recommender model trained", "recommender model loaded"];
const TRAIN_TIMEOUT_MS = 30 * 60_000;

export type Topology = Awaited<ReturnType<typeof startTopology>>;

const hostPort = (url: string) => new URL(url).host;

/** A copy of the storage's database on the same server, for the pair: its URL, and how to drop it. */
async function copyDatabase(storage: Storage): Promise<{ url: string; drop: () => Promise<void> }> {
  // Embedded: its PostgreSQL runs only while a server does; started here, the lone process will reuse it and
  // the storage's release stops it.
  if (storage.dataDir) {
    setLogLevel("warn"); // its lines would land in the report, on stdout
    await startEmbeddedDatabase(storage.dataDir);
  }
  const source = new URL(connectionUrl(storage));
  const name = `${source.pathname.slice(1)}_pair`;
  const admin = Object.assign(new URL(source), { pathname: "/template1" }).toString();
  log(`copying the loaded database for the pair (${name})`);
  await adminQuery(admin, `CREATE DATABASE "${name}" TEMPLATE "${source.pathname.slice(1)}"`);
  const copy = Object.assign(new URL(source), { pathname: `/${name}` }).toString();
  return { url: copy, drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

export async function startTopology(storage: Storage, recommendOrg: number) {
  const started: Child[] = [];
  const pairDatabase = await copyDatabase(storage);
  try {
    log("starting the lone process (CLUSTER=0)");
    const single = await startServer(storage, { ...LOG_ENV, CLUSTER: "0" });
    started.push(single.server);
    const shared: Storage = { databaseUrl: pairDatabase.url, release: async () => undefined };
    log("starting the pair (CLUSTER=1)");
    const pair = [];
    for (let i = 0; i < 2; i++) {
      const p = await startServer(shared, { ...LOG_ENV, CLUSTER: "1" });
      started.push(p.server);
      pair.push({ child: p.server, url: p.url });
    }
    const balancer = await startHaproxy([hostPort(pair[0]!.url), hostPort(pair[1]!.url)]);
    started.push(balancer.child);
    log(`HAProxy on ${balancer.url} in front of ${pair.map((p) => p.url).join(" and ")}; lone process on ${single.url}`);
    log("waiting for each process's model of the recommend organisation");
    const trained = [await waitForLog(single.server, "recommender model trained", (l) => Number(l.org) === recommendOrg, TRAIN_TIMEOUT_MS)];
    // Of the pair, one trains the organisation and the other loads its model (one trainer per organisation).
    for (const p of pair) await waitForLog(p.child, PAIR_MODEL_LINES, (l) => Number(l.org) === recommendOrg, TRAIN_TIMEOUT_MS);
    // The lone process's model of the recommend organisation: distinct users, items and user-item pairs it was trained on.
    const model = { users: Number(trained[0]!.users), items: Number(trained[0]!.items), pairs: Number(trained[0]!.interactions) };
    // dropPairDatabase: drops the pair's copy of the database (once the pair has stopped).
    return { single: { child: single.server, url: single.url }, pair, balancer, dropPairDatabase: pairDatabase.drop, model };
  } catch (err) {
    for (const c of started.reverse()) await stopChild(c);
    await pairDatabase.drop();
    throw err;
  }
}

/** HAProxy first, then the pair, then the lone process (which may own the embedded PostgreSQL). */
export async function stopTopology(t: Topology | undefined): Promise<void> {
  if (!t) return;
  await stopChild(t.balancer.child);
  await Promise.all(t.pair.map((p) => stopChild(p.child)));
  await stopChild(t.single.child);
  await t.dropPairDatabase();
}
