import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_LOCK_KEY } from "../../src/db/instanceLock.js";
import { call, newOrg, viewEvent } from "../helpers/api.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { eventually } from "../helpers/recommend.js";
import { startDatabase, startServer, type TestDatabase, type TestServer } from "../helpers/server.js";

/** Processes of the service on one embedded PostgreSQL that the test owns (so that it can restart it). */
let database: TestDatabase;
const running: TestServer[] = [];

beforeAll(async () => {
  database = await startDatabase({ embedded: true });
});
afterAll(async () => {
  for (const p of running.reverse()) await p.stop();
  await database?.cleanup();
});

async function start(cluster: boolean): Promise<TestServer> {
  const p = await startServer({ reuse: database, env: cluster ? { CLUSTER: "1" } : {} });
  running.push(p);
  return p;
}

async function stop(p: TestServer): Promise<void> {
  expect(await p.stop()).toBe(0);
  running.splice(running.indexOf(p), 1);
}

/** The start-up output of a process that must be refused: it exits non-zero before it listens. */
async function refused(cluster: boolean): Promise<string> {
  const error = await start(cluster).then(
    () => new Error("started"),
    (err: Error) => err,
  );
  expect(error.message).toMatch(/^server exited \(1\) before listening/);
  return error.message;
}

/** The service processes holding the lock now, as their lock connections name themselves. */
async function holders(): Promise<string[]> {
  const { rows } = await database.db().query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 AND l.objsubid = 1 ORDER BY a.application_name`,
    [INSTANCE_LOCK_KEY],
  );
  return rows.map((r) => r.name);
}

const named = (p: TestServer) => new RegExp(`^recsvc CLUSTER=[01] pid ${p.process.pid} `);

describe("one process without CLUSTER=1 per database", () => {
  it("refuses a second process without CLUSTER=1 on the same database, saying why and how, while the first keeps serving", async () => {
    const first = await start(false);
    const out = await refused(false);
    expect(out).toContain("another service process already runs on this database (recsvc CLUSTER=0 pid ");
    expect(out).toContain("set CLUSTER=1 on every process that shares a database");
    const org = await newOrg(first.url);
    expect((await call(first.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: viewEvent("u", "i") })).status).toBe(202);
  });

  it("refuses a CLUSTER=1 process beside a process without it", async () => {
    const out = await refused(true);
    expect(out).toContain("a service process without CLUSTER=1 already runs on this database (recsvc CLUSTER=0 pid ");
  });

  it("starts a new process once the first has stopped", async () => {
    await stop(running[0]);
    const next = await start(false);
    expect((await call(next.url, "GET", "/healthz")).status).toBe(200);
    await stop(next);
  });

  it("starts CLUSTER=1 processes side by side, and refuses one without it beside them", async () => {
    const [a, b] = [await start(true), await start(true)];
    const h = await holders();
    expect(h).toHaveLength(2);
    for (const p of [a, b]) expect(h.filter((name) => named(p).test(name))).toHaveLength(1);
    const out = await refused(false);
    expect(out).toContain("another service process already runs on this database (recsvc CLUSTER=1 pid ");
    await stop(b);
    await stop(a);
  });

  it("takes the lock again after PostgreSQL restarts, so a second process is still refused", async () => {
    const first = await start(false);
    await stopPostgres(database, "fast");
    await startPostgres(database);
    const { value } = await eventually(holders, (h) => h.length === 1 && named(first).test(h[0]), 10_000);
    expect(value).toEqual([expect.stringMatching(named(first))]);
    await refused(false);
    expect((await call(first.url, "GET", "/readyz")).status).toBe(200);
  });

  it("stops, saying why, when another took its database while its lock's connection was lost", async () => {
    const first = running[0];
    const exited = new Promise<number | null>((resolve) => first.process.once("exit", resolve));
    // Its lock connection cut, and the lock taken by someone else before it asks again (it waits 500 ms).
    const thief = new pg.Client({ connectionString: database.databaseUrl });
    await thief.connect();
    try {
      await thief.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1", [
        `recsvc CLUSTER=0 pid ${first.process.pid} %`,
      ]);
      const { value: taken } = await eventually(
        async () => (await thief.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1) AS taken", [INSTANCE_LOCK_KEY])).rows[0].taken,
        Boolean,
        400,
      );
      expect(taken).toBe(true);
      expect(await exited).toBe(1);
      running.splice(running.indexOf(first), 1);
      expect(first.output()).toContain("another process took this database while its instance lock was lost");
      expect(first.output()).toContain("another service process already runs on this database");
    } finally {
      await thief.end();
    }
  });
});
