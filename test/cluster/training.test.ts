import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startDatabase, startServer, type TestDatabase, type TestServer } from "../helpers/server.js";
import { seededRandom } from "../../workers/model/seededRandom.js";

/**
 * Processes with CLUSTER=1 on one PostgreSQL share each organisation's training: one trains, the others load its
 * model. The test starts the database itself (no service process of its own), so that the trainer can be killed
 * without taking an embedded PostgreSQL with it.
 */
const ITEMS = Array.from({ length: 60 }, (_, i) => `item-${String(i).padStart(2, "0")}`);
const USERS = Array.from({ length: 200 }, (_, u) => `user-${u}`);
const ASKED = USERS.filter((_, u) => u % 20 === 0);
/** LOG_LEVEL=info for the recommender threads' lines; a short lease, so that a killed trainer's runs out soon; no rate limit on the polling. */
const ENV = { CLUSTER: "1", LOG_LEVEL: "info", TRAINING_LEASE_S: "6", RATE_LIMIT_MAX: "1000000" };

let database: TestDatabase;
let p1: TestServer;
let p2: TestServer;
let p3: TestServer | undefined;
/** The process that trains the organisation, once known. */
let trainer: TestServer;
let org: Org;

/** Each user views 8 items, mostly of their group's third of the catalog: enough for EASE and ALS to learn from. */
function events(users: string[], seed: number): EventSpec[] {
  const random = seededRandom(seed);
  return users.flatMap((user) => {
    const group = Number(user.split("-")[1]) % 3;
    const seen = new Set<string>();
    while (seen.size < 8) seen.add(ITEMS[random() < 0.8 ? group * 20 + Math.floor(random() * 20) : Math.floor(random() * 60)]!);
    return [...seen].map((item) => ({ user, item }));
  });
}

const count = (p: TestServer, msg: string): number => p.output().split(`"msg":"${msg}"`).length - 1;
const trained = (p: TestServer): number => count(p, "recommender model trained");
const loaded = (p: TestServer): number => count(p, "recommender model loaded");

/** What a process recommends to each asked user and for a few items, with `fallback` wherever it had no model's answer. */
async function answers(p: TestServer): Promise<string[][]> {
  const asks = [
    ...ASKED.map((user_id) => ({ strategy: "personalized", user_id })),
    ...["item-00", "item-21", "item-45"].map((context_item_id) => ({ strategy: "similar", context_item_id })),
  ];
  return Promise.all(
    asks.map(async (body) => {
      const r = await recommend(p.url, org, { ...body, limit: 10 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.mode === "fallback" ? ["fallback"] : (r.body.data.recommended_items as string[]);
    }),
  );
}

const answered = (a: string[][]): boolean => a.every((items) => items[0] !== "fallback" && items.length > 0);

beforeAll(async () => {
  database = await startDatabase();
  p1 = await startServer({ reuse: database, env: ENV });
  org = await newOrg(p1.url);
  // p1 numbers the items in this (reversed) order; p2, started after, in item_id order, as it loads them.
  await upsertItems(
    p1.url,
    org,
    [...ITEMS].reverse().map((item_id) => ({ item_id })),
  );
  p2 = await startServer({ reuse: database, env: ENV });
  const all = events(USERS, 1);
  await Promise.all([sendEvents(p1.url, org, all.slice(0, 800)), sendEvents(p2.url, org, all.slice(800))]);
}, 180_000);
afterAll(async () => {
  await p3?.stop();
  await p2?.stop();
  await p1?.stop();
  await database?.cleanup();
});

describe("training shared by processes with CLUSTER=1", () => {
  it("trains an organisation in one process only, and the other loads its model", async () => {
    const { value } = await eventually(
      async () => [await answers(p1), await answers(p2)],
      ([a1, a2]) => answered(a1!) && answered(a2!),
      90_000,
    );
    expect(answered(value[0]!) && answered(value[1]!)).toBe(true);
    const trainers = [p1, p2].filter((p) => trained(p) > 0);
    expect(trainers).toHaveLength(1);
    trainer = trainers[0]!;
    const other = trainer === p1 ? p2 : p1;
    expect(trained(other)).toBe(0);
    expect(loaded(other)).toBeGreaterThan(0);
  });

  it("answers personalized and similar with the same items in both processes, though each numbers the items its own way", async () => {
    const { value } = await eventually(
      async () => [await answers(p1), await answers(p2)],
      ([a1, a2]) => JSON.stringify(a1) === JSON.stringify(a2),
      30_000,
    );
    expect(answered(value[0]!)).toBe(true);
    expect(value[1]).toEqual(value[0]);
  });

  it("loads the latest model in a process started late, instead of training it", async () => {
    p3 = await startServer({ reuse: database, env: ENV });
    const { value } = await eventually(
      async () => [await answers(p1), await answers(p3!)],
      ([a1, a3]) => answered(a3!) && JSON.stringify(a1) === JSON.stringify(a3),
      60_000,
    );
    expect(value[1]).toEqual(value[0]);
    expect(trained(p3)).toBe(0);
    expect(loaded(p3)).toBeGreaterThan(0);
  });

  it("has another process take the training over once the trainer is killed (SIGKILL), its lease run out", async () => {
    const survivors = [trainer === p1 ? p2 : p1, p3!];
    const before = survivors.map((p) => ({ trained: trained(p), loaded: loaded(p) }));
    await trainer.kill();
    // Enough new events (over 1,000) to make a retrain due: the survivors find it due, and one takes the lease.
    await sendEvents(
      survivors[0]!.url,
      org,
      events(
        USERS.map((u) => `${u}-again`),
        2,
      ),
    );
    const { value: took } = await eventually(
      async () => survivors.filter((p, k) => trained(p) > before[k]!.trained),
      (t) => t.length > 0,
      120_000,
    );
    expect(took).toHaveLength(1);
    trainer = took[0]!;
    const other = survivors.find((p) => p !== took[0])!;
    const { value: reloaded } = await eventually(
      async () => loaded(other) - before[survivors.indexOf(other)]!.loaded,
      (n) => n > 0,
      60_000,
    );
    expect(reloaded).toBeGreaterThan(0);
    expect(trained(other)).toBe(before[survivors.indexOf(other)]!.trained);
    const { value } = await eventually(
      async () => [await answers(survivors[0]!), await answers(survivors[1]!)],
      ([a, b]) => JSON.stringify(a) === JSON.stringify(b),
      30_000,
    );
    expect(value[1]).toEqual(value[0]);
  }, 240_000);

  it("gives up the trainer's lease when it stops (SIGTERM), so that another process may train at once", async () => {
    const leases = async () => Number((await database.db().query("SELECT count(*) AS n FROM training_lease")).rows[0].n);
    expect(await leases()).toBe(1);
    expect(await trainer.stop()).toBe(0);
    expect(await leases()).toBe(0);
  });
});
