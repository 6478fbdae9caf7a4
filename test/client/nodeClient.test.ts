import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecommendationClient, type TrackedEvent } from "recommendation-service/client";
import { newOrg, type Org } from "../helpers/api.js";
import { freePort, startServer, type TestServer } from "../helpers/server.js";
import { eventTotals, notStoredOnce, storedCounts } from "../helpers/traffic.js";

const EVENTS = 20_000;

describe("the Node client through a low rate limit and a server restart", () => {
  const env = { RATE_LIMIT_MAX: "20", RATE_LIMIT_WINDOW_S: "1" };
  let server: TestServer;
  let org: Org;
  const tracked: TrackedEvent[] = [];
  const statuses: Array<number | string> = [];

  beforeAll(async () => {
    const port = String(await freePort());
    const first = await startServer({ env: { ...env, PORT: port } });
    org = await newOrg(first.url);
    // Passes every call through, noting what came back: the test counts 429s and refused connections.
    const recording: typeof fetch = async (input, init) => {
      try {
        const res = await fetch(input, init);
        statuses.push(res.status);
        return res;
      } catch (err) {
        statuses.push("network");
        throw err;
      }
    };
    const client = new RecommendationClient({
      baseUrl: first.url,
      publishableKey: org.pk,
      maxQueueSize: EVENTS,
      flushIntervalMs: 50,
      backoff: { baseMs: 100, maxMs: 1_000 },
      fetch: recording,
      onError: (err) => statuses.push(`dropped ${err.code}`),
    });
    for (let i = 0; i < EVENTS; i++) {
      tracked.push(client.track({ event_name: "view", user_id: `u${i % 500}`, item_id: `i${i % 700}` }));
      if (i % 1_000 === 999) await new Promise((r) => setTimeout(r, 20));
    }
    // Mid-stream: most of the queue is still to send when the server goes away and comes back on its port.
    while (statuses.filter((s) => s === 202).length < 40) await new Promise((r) => setTimeout(r, 20));
    await first.stop();
    await new Promise((r) => setTimeout(r, 500));
    server = await startServer({ reuse: first, env: { ...env, PORT: port } });
    await client.close();
  }, 180_000);
  afterAll(async () => {
    await server?.cleanup();
  });

  it("met the rate limit (429) and the restart (refused connections) on the way", () => {
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === "network").length).toBeGreaterThan(0);
    expect(statuses.filter((s) => typeof s === "string" && s.startsWith("dropped"))).toEqual([]);
  });

  it("stores every tracked event exactly once, under the event_id the client gave it", async () => {
    expect(new Set(tracked.map((e) => e.event_id)).size).toBe(EVENTS);
    const counts = await storedCounts(server.db(), org.orgId);
    expect(
      notStoredOnce(
        tracked.map((e) => e.event_id),
        counts,
      ).slice(0, 5),
    ).toEqual([]);
    expect(await eventTotals(server.db(), org.orgId)).toEqual({ total: EVENTS, distinct: EVENTS });
  });
});
