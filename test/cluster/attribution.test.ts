import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { event, eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** Two processes with CLUSTER=1 on one PostgreSQL, each serving recommendations and taking the events that follow them. */
let p1: TestServer;
let p2: TestServer;
let org: Org;

beforeAll(async () => {
  const env = { CLUSTER: "1", RATE_LIMIT_MAX: "100000" };
  p1 = await startServer({ env });
  p2 = await startServer({ reuse: p1, env });
  org = await newOrg(p1.url);
  await upsertItems(
    p1.url,
    org,
    ["a", "b", "c"].map((item_id) => ({ item_id })),
  );
  await sendEvents(p1.url, org, [
    { user: "x", item: "a" },
    { user: "y", item: "b" },
    { user: "x", item: "c" },
  ]);
}, 120_000);
afterAll(async () => {
  await p2?.stop();
  await p1?.cleanup();
});

async function serve(p: TestServer, strategy: string, times: number): Promise<string[]> {
  const ids: string[] = [];
  for (let k = 0; k < times; k++) {
    const r = await recommend(p.url, org, { strategy });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    ids.push(r.body.data.recommendation_id);
  }
  return ids;
}

interface Figures {
  strategy: string;
  served: number;
  clicks: number;
  conversions: number;
}

async function report(p: TestServer): Promise<Figures[]> {
  const r = await call(p.url, "GET", "/v1/analytics/strategies", { token: org.token });
  expect(r.status).toBe(200);
  return (r.body.data.strategies as Figures[]).map(({ strategy, served, clicks, conversions }) => ({ strategy, served, clicks, conversions }));
}

const tagged = (spec: EventSpec, rid: string): EventSpec => ({ ...spec, extra: { ...spec.extra, recommendation_id: rid } });

describe("attribution across two processes on one PostgreSQL (CLUSTER=1)", () => {
  it("counts each recommendation once and each event carrying its id once, in the report of either process, whichever process took the event", async () => {
    // Identical requests in one process share a ranking (sharedAnswerKey): each must still be its own served recommendation.
    const popular1 = await serve(p1, "popular", 4);
    const trending1 = await serve(p1, "trending", 2);
    const popular2 = await serve(p2, "popular", 3);
    const trending2 = await serve(p2, "trending", 1);
    const all = [...popular1, ...trending1, ...popular2, ...trending2];
    expect(new Set(all).size).toBe(all.length);

    // Clicks and purchases sent to the other process than the one that served, and some to the same one.
    await sendEvents(p2.url, org, [
      tagged({ user: "x", item: "a", name: "click" }, popular1[0]!),
      tagged({ user: "x", item: "a", name: "click" }, popular1[0]!),
      tagged({ user: "y", item: "b", name: "click" }, popular1[1]!),
      tagged({ user: "y", item: "b", name: "impression", family: "exposure" }, popular1[3]!),
      tagged({ user: "z", item: "c", name: "click" }, popular2[1]!),
    ]);
    await sendEvents(p1.url, org, [
      tagged({ user: "x", item: "a", name: "purchase" }, popular1[0]!),
      tagged({ user: "z", item: "c", name: "click" }, popular2[0]!),
      tagged({ user: "z", item: "c", name: "purchase" }, trending2[0]!),
    ]);
    // One event sent to both processes with the same event_id (a client retrying through the other one): stored and counted once.
    const retried = event(tagged({ user: "w", item: "b", name: "purchase" }, trending1[1]!));
    for (const p of [p1, p2]) expect((await call(p.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: retried })).status).toBe(202);

    const expected: Figures[] = [
      { strategy: "popular", served: 7, clicks: 4, conversions: 1 },
      { strategy: "trending", served: 3, clicks: 0, conversions: 2 },
    ];
    // Each process writes its served log a fifth of a second after serving: wait until both have.
    const { value } = await eventually(
      () => report(p1),
      (figures) => figures.reduce((n, f) => n + f.served, 0) >= all.length,
      10_000,
    );
    expect(value).toEqual(expected);
    expect(await report(p2)).toEqual(expected);

    const { rows } = await p1
      .db()
      .query<{ n: number; distinct_ids: number }>(
        "SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS distinct_ids FROM events WHERE recommendation_id = ANY($1)",
        [all],
      );
    expect(rows[0]).toEqual({ n: 9, distinct_ids: 9 });
  });

  it("logs every recommendation two processes serve at once under an id of its own (no collision drops a row of the log)", async () => {
    const ids = (await Promise.all([serve(p1, "popular", 50), serve(p2, "popular", 50)])).flat();
    expect(new Set(ids).size).toBe(100);
    const { value } = await eventually(
      async () =>
        (await p1.db().query<{ n: number }>("SELECT count(*)::int AS n FROM served_recommendations WHERE recommendation_id = ANY($1)", [ids]))
          .rows[0]!.n,
      (n) => n === 100,
      10_000,
    );
    expect(value).toBe(100);
  });
});
