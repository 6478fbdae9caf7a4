import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startPostgres, stopPostgres } from "../helpers/postgres.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { notStoredOnce, outcomes, randomEvents, randomRequests, request, send, storedCounts, type SentRequest } from "../helpers/traffic.js";

/** A client that tolerates its server going away (an unhandled 'error' would end the test run). */
async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => undefined);
  await c.connect();
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One embedded server whose PostgreSQL the test stops and starts again. The steps run in order and share
 * `log`, every ingest request of the file, for the final check of what was stored.
 */
describe("ingestion while PostgreSQL is down", () => {
  let server: TestServer;
  let org: Org;
  const log: SentRequest[] = [];
  const ingest = async (events = randomEvents(3), key = org.pk) => {
    const r = await send(server.url, key, request(events));
    log.push(r);
    return r;
  };

  /** Polls with fresh events every 100 ms until one is accepted; every answer before that must be 503. */
  const msUntilAccepted = async (): Promise<number> => {
    const from = performance.now();
    for (;;) {
      const r = await ingest();
      if (r.status === 202) return performance.now() - from;
      expect(r.status, JSON.stringify({ status: r.status, error: r.error, network: r.network })).toBe(503);
      if (performance.now() - from > 10_000) return Infinity;
      await sleep(100);
    }
  };

  beforeAll(async () => {
    server = await startServer({ embedded: true, env: { RATE_LIMIT_MAX: "1000000" } });
    org = await newOrg(server.url);
    const warm = await ingest();
    expect(warm.status).toBe(202);
  });
  afterAll(async () => {
    await server?.cleanup();
  });

  it("answers 503 unavailable, never 202, to requests in flight when PostgreSQL goes down", async () => {
    // Hold the events table so that the writers block inside their transaction with these requests in it.
    const locker = await connect(server.databaseUrl);
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE events IN EXCLUSIVE MODE");
    const inFlight = randomRequests(20, 1, 50);
    const answers = inFlight.map(async (r) => {
      await sleep(Math.random() * 50);
      log.push(r);
      return send(server.url, org.pk, r);
    });
    const watcher = await connect(server.databaseUrl);
    try {
      // Whatever statement a writer uses, it waits for a lock on the events table.
      for (let i = 0; ; i++) {
        const { rows } = await watcher.query("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass");
        if (rows[0].n > 0) break;
        if (i > 100) throw new Error("no writer ever waited for the events table");
        await sleep(50);
      }
      await sleep(100); // let the rest of the requests join the waiting batches
      await stopPostgres(server);
    } finally {
      await watcher.end().catch(() => undefined);
      await locker.end().catch(() => undefined);
    }
    await Promise.all(answers);
    expect(outcomes(inFlight)).toEqual({ "503 unavailable": inFlight.length });
  });

  it("answers 503 unavailable to every ingest request while PostgreSQL is down", async () => {
    const one = await ingest(randomEvents(1));
    const many = await Promise.all(Array.from({ length: 20 }, () => ingest(randomEvents(1 + Math.floor(Math.random() * 100)))));
    expect(outcomes([one, ...many])).toEqual({ "503 unavailable": 21 });
    const items = await call(server.url, "POST", "/v1/items/upsert", {
      apiKey: org.sk,
      json: { item_id: "i-1", item_type: "product", status: "active" },
    });
    expect(items.status).toBe(503);
    expect(items.body).toMatchObject({ success: false, error: "unavailable" });
  });

  it("answers /readyz with 503 while PostgreSQL is down, and /healthz with 200", async () => {
    const ready = await call(server.url, "GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ success: false, error: "unavailable" });
    const health = await call(server.url, "GET", "/healthz");
    expect(health.status).toBe(200);
  });

  it("still authenticates a known API key without the database", async () => {
    // Each answer below needs the key resolved to its organisation and type: none of them is a 401.
    const wrongType = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.sk, json: randomEvents(1) });
    expect(wrongType.status).toBe(403);
    expect(wrongType.body.error).toBe("wrong_key_type");
    const invalid = await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: [{ user_id: "u" }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe("validation_error");
    expect(invalid.headers.get("ratelimit-limit")).toBe("1000000");
    const valid = await ingest();
    expect(valid.status).toBe(503);
    expect(valid.error).toBe("unavailable");
  });

  it("answers 503, not 401, for a key it cannot look up while PostgreSQL is down", async () => {
    const unknown = await call(server.url, "POST", "/v1/events/ingest", {
      apiKey: `svc_pk_${"x".repeat(40)}`,
      json: randomEvents(1),
    });
    expect(unknown.status).toBe(503);
    expect(unknown.body.error).toBe("unavailable");
  });

  it("resumes ingestion by itself within a few seconds of PostgreSQL's return", async () => {
    await startPostgres(server);
    expect(await msUntilAccepted()).toBeLessThan(5_000);
    const ready = await call(server.url, "GET", "/readyz");
    expect(ready.status).toBe(200);
    const burst = await Promise.all(Array.from({ length: 20 }, () => ingest(randomEvents(20))));
    expect(outcomes(burst)).toEqual({ "202": 20 });
  });

  it("answers 503 to the first request after PostgreSQL stopped while the server was idle, and recovers again", async () => {
    await stopPostgres(server, "fast");
    const first = await ingest();
    expect(first.status).toBe(503);
    expect(first.error).toBe("unavailable");
    await startPostgres(server);
    expect(await msUntilAccepted()).toBeLessThan(5_000);
  });

  it("stores every event it answered 202 for, once, and none it answered 503 for", async () => {
    const counts = await storedCounts(server.db(), org.orgId);
    const acked = log.filter((r) => r.status === 202);
    const refused = log.filter((r) => r.status === 503);
    expect(acked.length).toBeGreaterThan(20);
    expect(refused.length).toBeGreaterThan(40);
    expect(
      notStoredOnce(
        acked.flatMap((r) => r.ids),
        counts,
      ),
    ).toEqual([]);
    expect(refused.flatMap((r) => r.ids).filter((id) => counts.has(id))).toEqual([]);
    expect(log.filter((r) => r.status !== 202 && r.status !== 503)).toEqual([]);
  });
});
