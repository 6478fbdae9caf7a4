import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Result {
  item_id: string;
  score: number;
  reason: string;
}

let server: TestServer;
/** Three groups of ten items (a0…a9, b0…b9, c0…c9), each viewed together by its own users; and an inactive item. */
let shop: Org;

const results = (r: { body: { data: { results: Result[] } } }) => r.body.data.results;
const ids = (rs: Result[]) => rs.map((x) => x.item_id);

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  shop = await newOrg(server.url);
  const groups = ["a", "b", "c"];
  await upsertItems(server.url, shop, [
    ...groups.flatMap((g) => Array.from({ length: 10 }, (_, k) => ({ item_id: `${g}${k}`, attributes: { group: g } }))),
    { item_id: "off", status: "inactive" },
  ]);
  const events: EventSpec[] = [];
  for (const [n, g] of groups.entries()) {
    for (let u = 0; u < 20; u++)
      for (let k = 0; k < 10; k++) if ((u + k) % 3 !== 0) events.push({ user: `${g}-fan${u}`, item: `${g}${k}`, hoursAgo: 5 + n });
  }
  events.push({ user: "reader", item: "a0", hoursAgo: 1 }, { user: "reader", item: "a1", hoursAgo: 1 });
  await sendEvents(server.url, shop, events);
  await eventually(
    () => recommend(server.url, shop, { strategy: "personalized", user_id: "reader" }),
    (r) => r.body.data?.mode === "personalized",
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await server?.cleanup();
});

describe("candidates: only the caller's list is ranked", () => {
  it("re-ranks the list for the user, leaving out unknown, inactive and seen ids, and fills from it alone", async () => {
    const candidates = ["c3", "a5", "b2", "a7", "nope", "off", "a0", "c9"];
    const r = await recommend(server.url, shop, { strategy: "personalized", user_id: "reader", candidates, limit: 20 });
    expect(r.status).toBe(200);
    const got = results(r);
    // Every known, active, unseen candidate, and nothing else; the user's own group first, by the model.
    expect(ids(got).sort()).toEqual(["a5", "a7", "b2", "c3", "c9"]);
    expect(ids(got).slice(0, 2).sort()).toEqual(["a5", "a7"]);
    expect(got[0]!.reason).toBe("collaborative");
  });

  it("restricts every strategy, global ones included", async () => {
    for (const body of [{ strategy: "popular" }, { strategy: "also-viewed", context_item_id: "a0" }, { strategy: "new-arrivals" }]) {
      const r = await recommend(server.url, shop, { ...body, candidates: ["b1", "c1", "a3"], limit: 10 });
      expect(ids(results(r)).sort(), JSON.stringify(body)).toEqual(["a3", "b1", "c1"]);
    }
  });

  it("answers 400 naming candidates for an empty list or more than 500", async () => {
    for (const candidates of [[], Array.from({ length: 501 }, (_, k) => `x${k}`)]) {
      const r = await recommend(server.url, shop, { strategy: "popular", candidates });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message).toContain("candidates");
    }
  });
});

describe("context_item_ids: a cart", () => {
  it("sums each item's scores against the cart's items, best first, and never returns the cart's items", async () => {
    const cart = ["a0", "a1", "b0"];
    const r = await recommend(server.url, shop, { strategy: "also-viewed", context_item_ids: cart, limit: 30 });
    expect(r.status).toBe(200);
    expect(r.body.data.mode).toBe("contextual");
    const got = results(r).filter((x) => x.reason.startsWith("viewed-with:"));
    for (const item of cart) expect(ids(results(r))).not.toContain(item);
    // What each cart item alone gives every other item, summed; the reason names the cart item that gave most.
    const sums = new Map<string, { score: number; best: number; from: string }>();
    for (const c of cart) {
      const alone = results(await recommend(server.url, shop, { strategy: "also-viewed", context_item_id: c, limit: 30 }));
      for (const x of alone.filter((y) => y.reason === `viewed-with:${c}` && !cart.includes(y.item_id))) {
        const s = sums.get(x.item_id) ?? { score: 0, best: 0, from: c };
        s.score += x.score;
        if (x.score > s.best) Object.assign(s, { best: x.score, from: c });
        sums.set(x.item_id, s);
      }
    }
    expect(got.length).toBe(sums.size);
    expect(got.length).toBeGreaterThan(15);
    for (const x of got) {
      expect(x.score).toBeCloseTo(sums.get(x.item_id)!.score, 4);
      expect(x.reason).toBe(`viewed-with:${sums.get(x.item_id)!.from}`);
    }
    expect(got.map((x) => x.score)).toEqual([...got.map((x) => x.score)].sort((p, q) => q - p));
    // Items of the group two cart items belong to are reached twice: the best of them beats every b-item.
    expect(got[0]!.item_id.startsWith("a")).toBe(true);
  });

  it("takes a cart for every item strategy, and a cart of one as context_item_id", async () => {
    for (const strategy of ["similar", "frequently-bought-together", "also-viewed"]) {
      const one = await recommend(server.url, shop, { strategy, context_item_ids: ["b4"], limit: 10 });
      const single = await recommend(server.url, shop, { strategy, context_item_id: "b4", limit: 10 });
      expect(one.status, strategy).toBe(200);
      expect(ids(results(one))).toEqual(ids(results(single)));
      expect(ids(results(one))).not.toContain("b4");
    }
  });

  it("answers 400 for both fields at once, an empty cart or more than 50 items", async () => {
    for (const body of [
      { context_item_id: "a0", context_item_ids: ["a1"] },
      { context_item_ids: [] },
      { context_item_ids: Array.from({ length: 51 }, (_, k) => `x${k}`) },
    ]) {
      const r = await recommend(server.url, shop, { strategy: "similar", ...body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message).toContain("context_item_ids");
    }
  });
});
