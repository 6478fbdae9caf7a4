import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { eventTotals, notStoredOnce, outcomes, randomRequests, send, storedCounts, stream, type SentRequest } from "../helpers/traffic.js";

/** A load test must not trip the per-organisation rate limit. */
const ENV = { RATE_LIMIT_MAX: "1000000" };

/** Servers are cleaned up newest first: a restarted server before the one whose data (or database) it reused. */
const servers: TestServer[] = [];
async function start(opts: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const s = await startServer({ ...opts, env: { ...ENV, ...opts.env } });
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers.reverse()) await s.cleanup().catch(() => undefined);
});

const ids = (rs: SentRequest[]) => rs.flatMap((r) => r.ids);

describe("ingestion across a SIGKILL", () => {
  const requests = randomRequests(600, 1, 200);
  let org: Org;
  let restarted: TestServer;
  let inFlightAtKill = 0;

  // Several hundred requests of 1-200 events, 48 in flight at a time; the server is killed after the first
  // 150 answers, then a new server is started on the same data (the same database).
  beforeAll(async () => {
    const first = await start();
    org = await newOrg(first.url);
    const load = stream(first.url, org.pk, requests, 48);
    await load.whenAnswered(150);
    inFlightAtKill = load.inFlight;
    await first.kill();
    load.stop();
    await load.done;
    restarted = await start({ reuse: first });
  });

  const sent = () => requests.filter((r) => r.startedAt !== undefined);
  const acked = () => requests.filter((r) => r.status === 202);
  const unanswered = () => sent().filter((r) => r.status === undefined);

  it("answers every request 202 until it is killed, with requests still in flight at the kill", () => {
    expect(
      sent().filter((r) => r.status !== undefined && r.status !== 202),
      JSON.stringify(outcomes(requests)),
    ).toEqual([]);
    expect(acked().length).toBeGreaterThanOrEqual(150);
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(unanswered().length, "requests cut off by the kill").toBeGreaterThan(0);
  });

  it("stores every acknowledged event exactly once after a SIGKILL mid-stream", async () => {
    const counts = await storedCounts(restarted.db(), org.orgId);
    const bad = notStoredOnce(ids(acked()), counts);
    expect(bad.length, `acknowledged events not stored exactly once: ${JSON.stringify(bad.slice(0, 5))}`).toBe(0);
  });

  it("stores no event twice and none that was never sent", async () => {
    const db = restarted.db();
    const totals = await eventTotals(db, org.orgId);
    expect(totals.total).toBe(totals.distinct);
    const sentIds = new Set(ids(sent()));
    const counts = await storedCounts(db, org.orgId);
    expect([...counts.keys()].filter((id) => !sentIds.has(id))).toEqual([]);
    expect(totals.total).toBeGreaterThanOrEqual(ids(acked()).length);
  });

  it("keeps the organisation's keys working after the restart", async () => {
    const ready = await call(restarted.url, "GET", "/readyz");
    expect(ready.status).toBe(200);
    const fresh = randomRequests(1, 5, 5)[0];
    await send(restarted.url, org.pk, fresh);
    expect(fresh.status).toBe(202);
    const counts = await storedCounts(restarted.db(), org.orgId);
    expect(notStoredOnce(fresh.ids, counts)).toEqual([]);
  });

  it("answers 202 to acknowledged events sent again after the restart and still stores each once", async () => {
    const db = restarted.db();
    const before = await eventTotals(db, org.orgId);
    const again = acked()
      .slice(0, 60)
      .map((r) => ({ events: r.events, ids: r.ids }) as SentRequest);
    await Promise.all(again.map((r) => send(restarted.url, org.pk, r)));
    expect(outcomes(again)).toEqual({ "202": again.length });
    const after = await eventTotals(db, org.orgId);
    expect(after).toEqual(before);
    expect(notStoredOnce(ids(again), await storedCounts(db, org.orgId))).toEqual([]);
  });

  it("stores every sent event exactly once when the requests the kill cut off are retried", async () => {
    const retries = unanswered().map((r) => ({ events: r.events, ids: r.ids }) as SentRequest);
    await Promise.all(retries.map((r) => send(restarted.url, org.pk, r)));
    expect(outcomes(retries)).toEqual({ "202": retries.length });
    const db = restarted.db();
    const counts = await storedCounts(db, org.orgId);
    expect(notStoredOnce(ids(sent()), counts)).toEqual([]);
    const totals = await eventTotals(db, org.orgId);
    expect(totals.total).toBe(totals.distinct);
  });
});

describe("ingestion across a SIGTERM", () => {
  /**
   * Streams requests at a fresh server, sends SIGTERM once `answeredBeforeTerm` are answered, and keeps
   * sending on the open connections until the process is gone, as real clients would. Returns the exit code,
   * the requests, and a server started on the same data to look at what was stored.
   */
  async function terminateMidStream(env: Record<string, string>, answeredBeforeTerm: number) {
    const server = await start({ env });
    const org = await newOrg(server.url);
    const requests = randomRequests(800, 1, 200);
    const load = stream(server.url, org.pk, requests, 48);
    await load.whenAnswered(answeredBeforeTerm);
    const inFlightAtTerm = load.inFlight;
    const code = await server.stop();
    load.stop();
    await load.done;
    const after = await start({ reuse: server });
    return { code, org, requests, inFlightAtTerm, after };
  }

  /** Exit 0; every answer a 202 or a 503 `unavailable`; every 202 stored once; nothing refused stored. */
  async function expectShutdownKeptEveryAck(run: Awaited<ReturnType<typeof terminateMidStream>>): Promise<Map<string, number>> {
    const { code, org, requests, after } = run;
    expect(code).toBe(0);
    const answered = requests.filter((r) => r.status !== undefined);
    // Requests that arrive while it shuts down may be refused, but only as 503 unavailable.
    expect(
      answered.filter((r) => r.status !== 202 && !(r.status === 503 && r.error === "unavailable")),
      JSON.stringify(outcomes(requests)),
    ).toEqual([]);
    const acked = requests.filter((r) => r.status === 202);
    expect(acked.length).toBeGreaterThanOrEqual(150);
    const counts = await storedCounts(after.db(), org.orgId);
    expect(notStoredOnce(ids(acked), counts), `acknowledged events lost at shutdown: ${JSON.stringify(outcomes(requests))}`).toEqual([]);
    expect(
      ids(answered.filter((r) => r.status === 503)).filter((id) => counts.has(id)),
      "refused yet stored",
    ).toEqual([]);
    return counts;
  }

  it("exits 0 on SIGTERM with requests in flight and stores every event it acknowledged", async () => {
    const run = await terminateMidStream({}, 150);
    expect(run.inFlightAtTerm).toBeGreaterThan(0);
    await expectShutdownKeptEveryAck(run);
    const totals = await eventTotals(run.after.db(), run.org.orgId);
    expect(totals.total).toBe(totals.distinct);
  });

  it("with INGEST_ACK=queued, stores every acknowledged event after a SIGTERM (shutdown flushes the queue)", async () => {
    await expectShutdownKeptEveryAck(await terminateMidStream({ INGEST_ACK: "queued" }, 150));
  });
});
