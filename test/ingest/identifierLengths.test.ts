import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommended, sendEvents, upsertItems } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

/** An id of `tag` (one ASCII letter) filled with `unit` to `units` UTF-16 code units, as CONTRACT 4 counts them. */
function id(tag: string, unit: string, units: number): string {
  return tag + unit.repeat((units - 1) / unit.length);
}

/** Every size class msgpack and UTF-8 treat differently, up to the contract's 256 characters (768 bytes). */
const CLASSES: Array<{ name: string; make: (tag: string) => string; bytes: number }> = [
  { name: "1 byte", make: (tag) => tag, bytes: 1 },
  { name: "255 bytes", make: (tag) => id(tag, "x", 255), bytes: 255 },
  { name: "256 bytes (256 one-byte characters)", make: (tag) => id(tag, "x", 256), bytes: 256 },
  { name: "257 bytes", make: (tag) => `${tag}é${"x".repeat(254)}`, bytes: 257 },
  { name: "256 two-byte characters", make: (tag) => `${"é".repeat(255)}${tag}`, bytes: 511 },
  { name: "256 three-byte characters", make: (tag) => `${"中".repeat(255)}${tag}`, bytes: 766 },
  { name: "256 code units of four-byte characters", make: (tag) => `${tag}${"😀".repeat(127)}x`, bytes: 510 },
];

let server: TestServer;
let org: Org;
/** Cleaned up newest first: the restarted server before the one whose data it reused. */
const servers: TestServer[] = [];

function idsOf(c: (typeof CLASSES)[number]) {
  return { user: c.make("u"), anon: c.make("a"), item: c.make("i"), recommendation: c.make("r") };
}

async function noRestarts(): Promise<void> {
  expect(server.output()).not.toContain("recommender thread exited");
  const ready = await call(server.url, "GET", "/readyz");
  expect(ready.status).toBe(200);
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  servers.push(server);
  org = await newOrg(server.url);
});
afterAll(async () => {
  for (const s of servers.reverse()) await s.cleanup();
});

describe("identifiers of every length the contract allows", () => {
  it("builds ids of the intended sizes", () => {
    for (const c of CLASSES) {
      for (const v of Object.values(idsOf(c))) {
        expect(Buffer.byteLength(v), c.name).toBe(c.bytes);
        expect(v.length).toBeLessThanOrEqual(256);
      }
    }
  });

  it("stores and serves user_id, item_id, previous_user_id and recommendation_id of each size: recently-viewed after an identify merge", async () => {
    await upsertItems(
      server.url,
      org,
      CLASSES.map((c) => ({ item_id: idsOf(c).item })),
    );
    // The anonymous id views the item (carrying a long recommendation_id and a long context string), then is identified.
    await sendEvents(
      server.url,
      org,
      CLASSES.map((c) => ({
        user: idsOf(c).anon,
        item: idsOf(c).item,
        extra: { recommendation_id: idsOf(c).recommendation, context: { note: c.make("n") } },
      })),
    );
    await sendEvents(
      server.url,
      org,
      CLASSES.map((c) => ({ user: idsOf(c).user, name: "identify", family: "system", extra: { previous_user_id: idsOf(c).anon } })),
    );
    for (const c of CLASSES) {
      const { user, item } = idsOf(c);
      const { value } = await eventually(
        () => recommended(server.url, org, { strategy: "recently-viewed", user_id: user }),
        (items) => items.includes(item),
      );
      expect(value, c.name).toEqual([item]);
    }
    await noRestarts();
    const stored = await server
      .db()
      .query("SELECT user_id, item_id, recommendation_id FROM events WHERE user_id = ANY($1) AND item_id IS NOT NULL", [
        CLASSES.map((c) => idsOf(c).anon),
      ]);
    expect(stored.rows.map((r) => [r.user_id, r.item_id, r.recommendation_id]).sort()).toEqual(
      CLASSES.map((c) => [idsOf(c).anon, idsOf(c).item, idsOf(c).recommendation]).sort(),
    );
  });

  it("rebuilds the same answers from PostgreSQL after a restart", async () => {
    expect(await server.stop()).toBe(0);
    server = await startServer({ env: { RATE_LIMIT_MAX: "100000" }, reuse: server });
    servers.push(server);
    for (const c of CLASSES) {
      const { user, anon, item } = idsOf(c);
      for (const who of [user, anon]) {
        const { value } = await eventually(
          () => recommended(server.url, org, { strategy: "recently-viewed", user_id: who }),
          (items) => items.includes(item),
        );
        expect(value, `${c.name}: ${who === user ? "user" : "anonymous id"}`).toEqual([item]);
      }
    }
    await noRestarts();
  });
});
