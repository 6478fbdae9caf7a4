import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer;
let org: Org;

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  org = await newOrg(server.url);
  await upsertItems(
    server.url,
    org,
    ["a", "b", "c"].map((item_id) => ({ item_id })),
  );
  await sendEvents(server.url, org, [{ user: "x", item: "a", name: "purchase" }]);
});
afterAll(async () => {
  await server?.cleanup();
});

const USERS = 240;
/** Hundreds of requests and a wait for the writers: on a busy two-core machine this takes more than the default minute. */
const SLOW_MS = 240_000;

interface Variant {
  variant: string;
  control: boolean;
  users: number;
  served: number;
  clicks: number;
  conversions: number;
  users_converted: number;
  against_control: Record<string, { difference: number; low: number; high: number; p_value: number; significant: boolean }> | null;
}

/**
 * Synthetic traffic: USERS users each get one recommendation on `scenario`; the k-th user to land in a variant
 * clicks when k is even and converts when k is a multiple of `convertEvery[variant]`. Deterministic whatever
 * the split (the experiment's id is random): the rates are fixed by construction, not by chance.
 */
async function traffic(scenario: string, convertEvery: Record<string, number>): Promise<Map<string, number>> {
  const arrivals = new Map<string, number>();
  const events: EventSpec[] = [];
  for (let start = 0; start < USERS; start += 20) {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => recommend(server.url, org, { strategy: "popular", user_id: `${scenario}-user-${start + i}`, scenario })),
    );
    answers.forEach((r, i) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const variant = r.body.data.experiment.variant as string;
      const k = arrivals.get(variant) ?? 0;
      arrivals.set(variant, k + 1);
      const user = `${scenario}-user-${start + i}`;
      const rid = { recommendation_id: r.body.data.recommendation_id };
      if (k % 2 === 0) events.push({ user, item: "a", name: "click", extra: rid });
      if (k % convertEvery[variant]! === 0) events.push({ user, item: "a", name: "purchase", extra: rid });
    });
  }
  await sendEvents(server.url, org, events);
  return arrivals;
}

async function results(id: string, arrivals: Map<string, number>, convertEvery: Record<string, number>): Promise<Variant[]> {
  const expected = [...arrivals].reduce((n, [v, k]) => n + Math.ceil(k / convertEvery[v]!), 0);
  // Served rows are written every 200 ms and events by the writers: wait until every row and conversion is in.
  const { value } = await eventually(
    () => call(server.url, "GET", `/v1/analytics/experiments/${id}`, { token: org.token }),
    (r) =>
      r.status === 200 &&
      (r.body.data.variants as Variant[]).reduce((n, v) => n + v.served, 0) === USERS &&
      (r.body.data.variants as Variant[]).reduce((n, v) => n + v.conversions, 0) === expected,
    // Generous: on a busy machine the writers' commits lag by seconds.
    60_000,
  );
  expect(value.status, JSON.stringify(value.body)).toBe(200);
  return value.body.data.variants;
}

describe("GET /v1/analytics/experiments/{id}", () => {
  it(
    "finds the variant that truly converts more (25 % against 10 %): p < 0.05 and an interval above 0, and no click-through winner where clicks are equal",
    async () => {
      const convertEvery = { A: 10, B: 4, holdout: 1000 };
      const e = (
        await call(server.url, "POST", "/v1/experiments", {
          token: org.token,
          json: {
            name: "B converts more",
            scenario: "home",
            variants: [
              { name: "A", share: 0.5 },
              { name: "B", share: 0.5, strategy: "trending" },
            ],
            holdout: 0.1,
          },
        })
      ).body.data;
      const arrivals = await traffic("home", convertEvery);
      const variants = await results(e.experiment_id, arrivals, convertEvery);
      expect(variants.map((v) => [v.variant, v.control])).toEqual([
        ["A", true],
        ["B", false],
        ["holdout", false],
      ]);
      for (const v of variants) {
        expect(v.users, v.variant).toBe(arrivals.get(v.variant));
        expect(v.served, v.variant).toBe(arrivals.get(v.variant));
        expect(v.conversions, v.variant).toBe(Math.ceil(v.served / convertEvery[v.variant as keyof typeof convertEvery]));
        expect(v.clicks, v.variant).toBe(Math.ceil(v.served / 2));
      }
      const [a, b] = variants;
      expect(a!.against_control).toBeNull();
      for (const measure of ["conversion", "user_conversion"]) {
        const d = b!.against_control![measure]!;
        expect(d.difference, measure).toBeGreaterThan(0.1);
        expect(d.p_value, measure).toBeLessThan(0.05);
        expect(d.significant).toBe(true);
        expect(d.low, measure).toBeGreaterThan(0);
      }
      for (const measure of ["click_through", "user_click_through"]) {
        expect(b!.against_control![measure]!.significant, measure).toBe(false);
        expect(b!.against_control![measure]!.low).toBeLessThan(0);
      }
    },
    SLOW_MS,
  );

  it(
    "claims no winner between two variants that convert alike, and reports rates with intervals and a daily series",
    async () => {
      const convertEvery = { A: 10, B: 10 };
      const e = (
        await call(server.url, "POST", "/v1/experiments", {
          token: org.token,
          json: {
            name: "A/A",
            scenario: "cart",
            variants: [
              { name: "A", share: 0.5 },
              { name: "B", share: 0.5 },
            ],
          },
        })
      ).body.data;
      const arrivals = await traffic("cart", convertEvery);
      const variants = await results(e.experiment_id, arrivals, convertEvery);
      const b = variants[1]!;
      for (const measure of ["click_through", "conversion", "user_click_through", "user_conversion"]) {
        expect(b.against_control![measure]!.significant, measure).toBe(false);
        expect(b.against_control![measure]!.p_value, measure).toBeGreaterThan(0.5);
      }
      const r = await call(server.url, "GET", `/v1/analytics/experiments/${e.experiment_id}`, { apiKey: org.sk });
      const data = r.body.data;
      expect(data.test).toContain("two-proportion z-test");
      const a = data.variants[0];
      expect(a.user_conversion.low).toBeLessThan(a.user_conversion.rate);
      expect(a.user_conversion.high).toBeGreaterThan(a.user_conversion.rate);
      const today = new Date().toISOString().slice(0, 10);
      const days = data.daily.filter((d: { day: string }) => d.day === today);
      expect(days.map((d: { variant: string; served: number }) => [d.variant, d.served])).toEqual([
        ["A", arrivals.get("A")],
        ["B", arrivals.get("B")],
      ]);
    },
    SLOW_MS,
  );
});
