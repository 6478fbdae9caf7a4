import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;
let other: Org;

/**
 * Planted data: two taste groups (g-items, h-items) so that `personalized` has a model, and the person to erase,
 * "pa": an upserted user who viewed three g-items, bought p1 twice, and was known before sign-in as "anon-pa".
 * "keep" did the same and is not erased.
 */
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000", ERASURE_CHUNK_BLOCKS: "16" } });
  org = await newOrg(server.url);
  other = await newOrg(server.url);
  const items = ["p1", "p2", ...Array.from({ length: 6 }, (_, i) => `g${i}`), ...Array.from({ length: 6 }, (_, i) => `h${i}`)];
  await upsertItems(
    server.url,
    org,
    items.map((item_id) => ({ item_id })),
  );
  const users = ["pa", "keep"].map((user_id) => ({ user_id, status: "active", created_at: "2024-01-01T00:00:00Z" }));
  expect((await call(server.url, "POST", "/v1/users/upsert", { apiKey: org.sk, json: users })).status).toBe(202);
  const events: EventSpec[] = [];
  for (let u = 0; u < 8; u++) {
    for (let i = 0; i < 6; i++) {
      if ((u + i) % 4 === 0) continue;
      events.push({ user: `ga${u}`, item: `g${i}`, hoursAgo: 10 }, { user: `ha${u}`, item: `h${i}`, hoursAgo: 10 });
    }
  }
  for (const user of ["anon-pa", "keep"]) events.push({ user, item: "g0", hoursAgo: 6 });
  for (const user of ["pa", "keep"]) {
    events.push({ user, item: "g1", hoursAgo: 5 }, { user, item: "g2", hoursAgo: 5 });
    events.push({ user, item: "p1", name: "purchase", hoursAgo: 300 }, { user, item: "p1", name: "purchase", hoursAgo: 100 });
  }
  await sendEvents(server.url, org, events);
  const identify = { user_id: "pa", event_family: "system", event_name: "identify", previous_user_id: "anon-pa" };
  expect((await call(server.url, "POST", "/v1/events/ingest", { apiKey: org.pk, json: identify })).status).toBe(202);
}, 120_000);
afterAll(async () => {
  await server?.cleanup();
});

async function answer(url: string, strategy: string, user: string): Promise<{ mode: string; items: string[] }> {
  const r = await recommend(url, org, { strategy, user_id: user, limit: 10 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { mode: r.body.data.mode, items: [...(r.body.data.recommended_items as string[])].sort() };
}

/** What the user's own history gives: recently-viewed and buy-again items, and whether personalized is personal. */
async function personal(url: string, user: string): Promise<{ viewed: string[]; buyAgain: string[]; personalized: boolean }> {
  const viewed = await answer(url, "recently-viewed", user);
  const again = await answer(url, "buy-again", user);
  const personalized = await answer(url, "personalized", user);
  return {
    viewed: viewed.mode === "fallback" ? [] : viewed.items,
    buyAgain: again.mode === "fallback" ? [] : again.items,
    personalized: personalized.mode === "personalized",
  };
}

/** The user's rows in PostgreSQL; served recommendations up to `until` (later ones are the id's new life, not erased). */
async function rowsOf(user: string, until = "9999-12-31T00:00:00Z"): Promise<Record<string, number>> {
  const db = server.db();
  const n = async (sql: string) => Number((await db.query<{ n: string }>(sql, [user, until])).rows[0]!.n);
  return {
    users: await n("SELECT count(*) AS n FROM users WHERE user_id = $1 AND $2::text IS NOT NULL"),
    events: await n("SELECT count(*) AS n FROM events WHERE (user_id = $1 OR previous_user_id = $1) AND received_at <= $2"),
    aliases: await n("SELECT count(*) AS n FROM identity_aliases WHERE (user_id = $1 OR previous_user_id = $1) AND $2::text IS NOT NULL"),
    served: await n("SELECT count(*) AS n FROM served_recommendations WHERE user_id = $1 AND served_at <= $2"),
  };
}

async function erasure(url: string, id: string, auth: { apiKey?: string; token?: string }) {
  return call(url, "GET", `/v1/users/erase/${id}`, auth);
}

describe("POST /v1/users/erase", () => {
  it("answers 400 validation_error for no user, more than 1,000, or an id that is not one, and 403 wrong_key_type with the publishable key", async () => {
    for (const json of [{ user_ids: [] }, { user_ids: Array.from({ length: 1001 }, (_, i) => `u${i}`) }, { user_ids: [""] }, { users: ["pa"] }]) {
      const r = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json });
      expect([r.status, r.body.error]).toEqual([400, "validation_error"]);
    }
    const pk = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.pk, json: { user_ids: ["pa"] } });
    expect([pk.status, pk.body.error]).toEqual([403, "wrong_key_type"]);
    const none = await call(server.url, "POST", "/v1/users/erase", { json: { user_ids: ["pa"] } });
    expect([none.status, none.body.error]).toEqual([401, "missing_api_key"]);
  });

  it("answers 202 with an erasure id; the user's history leaves the index at once, then their rows leave PostgreSQL, and the erasure says done with counts", async () => {
    // Before: the user's own strategies answer from their history (the anonymous id's view joined it), and a served row exists.
    const before = await eventually(
      () => personal(server.url, "pa"),
      (p) => p.viewed.length === 3 && p.buyAgain.length === 1 && p.personalized,
      60_000,
    );
    expect(before.value).toEqual({ viewed: ["g0", "g1", "g2"], buyAgain: ["p1"], personalized: true });
    await eventually(
      () => rowsOf("pa"),
      (r) => r.served > 0,
    );
    expect(await rowsOf("pa")).toMatchObject({ users: 1, events: 5, aliases: 1 });

    const r = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["pa", "anon-pa", "never-seen"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const id = r.body.data.erasure_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    expect(await personal(server.url, "pa")).toEqual({ viewed: [], buyAgain: [], personalized: false });
    expect(await personal(server.url, "anon-pa")).toEqual({ viewed: [], buyAgain: [], personalized: false });

    const done = await eventually(
      () => erasure(server.url, id, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      30_000,
    );
    expect(done.value.body.data).toMatchObject({
      erasure_id: id,
      status: "done",
      users: 3,
      deleted: { users: 1, aliases: 1, events: 6 },
    });
    expect(done.value.body.data.deleted.served_recommendations).toBeGreaterThan(0);
    const requestedAt = done.value.body.data.requested_at as string;
    for (const user of ["pa", "anon-pa"]) expect(await rowsOf(user, requestedAt)).toEqual({ users: 0, events: 0, aliases: 0, served: 0 });
    expect((await rowsOf("pa")).events).toBe(0);
    // The person not erased keeps everything.
    expect((await rowsOf("keep")).events).toBe(5);
    expect(await personal(server.url, "keep")).toMatchObject({ viewed: ["g0", "g1", "g2"], buyAgain: ["p1"] });
  });

  it("is audited as users.erased, and read by a dashboard token of the organisation, not by another organisation", async () => {
    const r = await call(server.url, "POST", "/v1/users/erase", { token: org.token, json: { user_ids: ["nobody"] } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const id = r.body.data.erasure_id as string;
    const log = await call(server.url, "GET", "/v1/audit-log", { token: org.token });
    const erased = (log.body.data.entries as Array<{ action: string; target: string; actor: { email: string | null } }>).filter(
      (e) => e.action === "users.erased",
    );
    expect(erased.map((e) => e.actor.email)).toEqual([org.email, null]);
    expect(erased[0]!.target).toContain(id);
    expect(erased[1]!.target).toContain(`key pair ${org.keyPairId}`);
    expect((await erasure(server.url, id, { token: org.token })).status).toBe(200);
    for (const auth of [{ apiKey: other.sk }, { token: other.token }]) {
      const foreign = await erasure(server.url, id, auth);
      expect([foreign.status, foreign.body.error]).toEqual([404, "not_found"]);
    }
    expect((await erasure(server.url, "not-a-uuid", { apiKey: org.sk })).status).toBe(404);
  });

  it("answers 403 forbidden_role to a DEVELOPER's dashboard token, for the request and its state alike", async () => {
    const token = await memberToken(server, org, "DEVELOPER");
    const post = await call(server.url, "POST", "/v1/users/erase", { token, json: { user_ids: ["keep"] } });
    expect([post.status, post.body.error]).toEqual([403, "forbidden_role"]);
    const r = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["nobody-either"] } });
    const read = await erasure(server.url, r.body.data.erasure_id as string, { token });
    expect([read.status, read.body.error]).toEqual([403, "forbidden_role"]);
    expect((await rowsOf("keep")).users).toBe(1);
  });

  it("keeps the user gone after a restart, and the erasure's state with it", async () => {
    const erased = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["ga0"] } });
    const id = erased.body.data.erasure_id as string;
    await eventually(
      () => erasure(server.url, id, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      30_000,
    );
    expect(await server.stop()).toBe(0);
    server = await startServer({ reuse: server, env: { RATE_LIMIT_MAX: "100000" } });
    for (const user of ["pa", "anon-pa", "ga0"]) expect(await personal(server.url, user)).toEqual({ viewed: [], buyAgain: [], personalized: false });
    expect((await personal(server.url, "keep")).viewed).toEqual(["g0", "g1", "g2"]);
    expect((await erasure(server.url, id, { apiKey: org.sk })).body.data).toMatchObject({ status: "done", deleted: { events: 4 } });
  }, 120_000);

  it("finishes after a restart an erasure the stopped process left pending, and the restarted index leaves its user out meanwhile", async () => {
    const before = await eventually(
      () => personal(server.url, "ha1"),
      (p) => p.viewed.length === 5,
    );
    expect(before.value.viewed).toEqual(["h0", "h1", "h2", "h4", "h5"]);
    const r = await call(server.url, "POST", "/v1/users/erase", { apiKey: org.sk, json: { user_ids: ["ha1"] } });
    const id = r.body.data.erasure_id as string;
    // Stopped at once: the erasure waits seconds for rows still in flight, so its events are still stored.
    const pending = await server.db().query("SELECT done_at, events FROM erasures WHERE id = $1", [id]);
    expect(pending.rows[0]).toEqual({ done_at: null, events: "0" });
    expect(await server.stop()).toBe(0);
    server = await startServer({ reuse: server, env: { RATE_LIMIT_MAX: "100000" } });
    expect(await personal(server.url, "ha1")).toEqual({ viewed: [], buyAgain: [], personalized: false });
    const done = await eventually(
      () => erasure(server.url, id, { apiKey: org.sk }),
      (e) => e.body.data?.status === "done",
      30_000,
    );
    expect(done.value.body.data.deleted.events).toBe(5);
    expect((await rowsOf("ha1")).events).toBe(0);
  }, 120_000);
});
