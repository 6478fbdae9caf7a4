import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type ApiResponse, type Org } from "../helpers/api.js";
import { memberToken } from "../helpers/members.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Result {
  item_id: string;
  score: number;
  reason: string;
}

let server: TestServer;
/**
 * Thirty items p00…p29 of brands A, B, C in turn (p00 A, p01 B, p02 C, …), `price` their number, each viewed
 * 30 − k times: `popular` ranks them p00 first, p29 last. `off` is inactive, `quiet` has no events.
 */
let shop: Org;
const ITEMS = Array.from({ length: 30 }, (_, k) => `p${String(k).padStart(2, "0")}`);
const brandOf = (id: string) => ["A", "B", "C"][Number(id.slice(1)) % 3]!;

const results = (r: ApiResponse): Result[] => r.body.data.results;
const ids = (rs: Result[]) => rs.map((x) => x.item_id);

async function createRule(body: Record<string, unknown>, org = shop): Promise<ApiResponse> {
  return call(server.url, "POST", "/v1/rules", { apiKey: org.sk, json: body });
}

/** Runs `fn` while the rule exists (created with the secret key, deleted after). */
async function withRule<T>(body: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const r = await createRule({ enabled: true, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  try {
    return await fn();
  } finally {
    const d = await call(server.url, "DELETE", `/v1/rules/${r.body.data.rule_id}`, { apiKey: shop.sk });
    expect(d.status).toBe(200);
  }
}

async function popular(body: Record<string, unknown> = {}): Promise<Result[]> {
  const r = await recommend(server.url, shop, { strategy: "popular", limit: 10, ...body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return results(r);
}

/** Pages 1…n of `limit`, concatenated. */
async function pages(body: Record<string, unknown>, limit: number, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let page = 1; page <= n; page++) out.push(...ids(await popular({ ...body, limit, page })));
  return out;
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  shop = await newOrg(server.url);
  await upsertItems(server.url, shop, [
    ...ITEMS.map((item_id, k) => ({ item_id, attributes: { brand: brandOf(item_id), price: k } })),
    { item_id: "off", status: "inactive", attributes: { brand: "A", price: 1 } },
    { item_id: "quiet", attributes: { brand: "A", price: 1 } },
  ]);
  const events: EventSpec[] = [];
  ITEMS.forEach((item, k) => {
    for (let u = 0; u < 30 - k; u++) events.push({ user: `u${u}`, item, hoursAgo: 1 });
  });
  await sendEvents(server.url, shop, events);
  await eventually(
    () => popular({ limit: 30 }),
    // Every event counted, not only the order right: a p00 missing a view would still rank first, and halved rank
    // below p16. Scores are decayed counts, so each is (30 − k) times p29's, within the hour's decay.
    (rs) => rs.length === 30 && rs.every((r, k) => r.item_id === ITEMS[k] && Math.abs(r.score / rs[29]!.score - (30 - k)) < 0.01 * (30 - k)),
    30_000,
  );
}, 90_000);

afterAll(async () => {
  await server?.cleanup();
});

describe("rules: managing them", () => {
  it("creates, lists, replaces and deletes a rule with the secret key or a DEVELOPER's dashboard token, and audits each change", async () => {
    const token = await memberToken(server, shop, "DEVELOPER");
    const body = { name: "Acme up", enabled: true, action: "boost", factor: 2, items: { brand: "A" }, scenarios: ["home"] };
    const created = await call(server.url, "POST", "/v1/rules", { token, json: body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.rule_id as string;
    expect(created.body.data).toMatchObject(body);

    const listed = await call(server.url, "GET", "/v1/rules", { apiKey: shop.sk });
    expect(listed.status).toBe(200);
    expect(listed.body.data.max).toBe(100);
    expect(listed.body.data.rules.map((r: { rule_id: string }) => r.rule_id)).toContain(id);

    const replaced = await call(server.url, "PUT", `/v1/rules/${id}`, { apiKey: shop.sk, json: { ...body, enabled: false, factor: 3 } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.data).toMatchObject({ rule_id: id, enabled: false, factor: 3 });

    const deleted = await call(server.url, "DELETE", `/v1/rules/${id}`, { token });
    expect(deleted.status).toBe(200);
    expect((await call(server.url, "DELETE", `/v1/rules/${id}`, { token })).status).toBe(404);
    expect((await call(server.url, "PUT", `/v1/rules/${id}`, { token, json: body })).status).toBe(404);

    const log = await call(server.url, "GET", "/v1/audit-log?limit=50", { token: shop.token });
    const entries = (log.body.data.entries as Array<{ action: string; target: string }>).filter((e) => e.target.includes(id));
    expect(entries.map((e) => e.action).sort()).toEqual(["rule.created", "rule.deleted", "rule.updated"]);
    expect(entries.find((e) => e.action === "rule.created")!.target).toContain('"Acme up" (boost)');
  });

  it("lets a MEMBER's token read the rules but not change them, answers 403 to the publishable key, and 401 without credentials", async () => {
    const token = await memberToken(server, shop, "MEMBER");
    expect((await call(server.url, "GET", "/v1/rules", { token })).status).toBe(200);
    const member = await call(server.url, "POST", "/v1/rules", { token, json: { name: "m", enabled: true, action: "block", items: { brand: "A" } } });
    expect(member.status).toBe(403);
    expect(member.body.error).toBe("forbidden_role");
    const publishable = await call(server.url, "GET", "/v1/rules", { apiKey: shop.pk });
    expect(publishable.status).toBe(403);
    expect(publishable.body.error).toBe("wrong_key_type");
    expect((await call(server.url, "GET", "/v1/rules")).status).toBe(401);
  });

  it("answers 400 validation_error naming the field of an invalid rule", async () => {
    const base = { name: "r", enabled: true, action: "boost", factor: 2, items: { brand: "A" } };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, factor: undefined }, "factor"],
      [{ ...base, factor: 0.5 }, "factor"],
      [{ ...base, action: "bury", factor: 2 }, "factor"],
      [{ ...base, action: "pin", factor: undefined }, "position"],
      [{ ...base, action: "pin", factor: undefined, position: 101 }, "position"],
      [{ ...base, action: "promote", factor: undefined, share: 1.5 }, "share"],
      [{ ...base, action: "block", factor: undefined, share: 0.5 }, "share"],
      [{ ...base, action: "hide" }, "action"],
      [{ ...base, items: {} }, "items"],
      [{ ...base, items: { price: { min: 5, max: 1 } } }, "items.price"],
      [{ ...base, items: { item_id: Array.from({ length: 501 }, (_, k) => `x${k}`) } }, "items.item_id"],
      [{ ...base, scenarios: ["Home Page"] }, "scenarios"],
      [{ ...base, strategies: ["best"] }, "strategies"],
      [{ ...base, starts_at: "tomorrow" }, "starts_at"],
      [{ ...base, starts_at: "2030-01-02T00:00:00Z", ends_at: "2030-01-01T00:00:00Z" }, "ends_at"],
      [{ ...base, name: "" }, "name"],
      [{ ...base, colour: "red" }, "colour"],
    ];
    for (const [body, field] of cases) {
      const r = await createRule(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message, JSON.stringify(body)).toContain(field);
    }
  });

  it("allows at most 100 rules per organisation: the 101st is 403 quota_exceeded naming the limit", async () => {
    const org = await newOrg(server.url);
    for (let k = 0; k < 100; k++) {
      const r = await createRule({ name: `r${k}`, enabled: k % 2 === 0, action: "block", items: { item_id: [`x${k}`] } }, org);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const over = await createRule({ name: "one more", enabled: true, action: "block", items: { item_id: ["y"] } }, org);
    expect(over.status).toBe(403);
    expect(over.body.error).toBe("quota_exceeded");
    expect(over.body.message).toContain("100");
    // Another organisation's rules are its own: the shop does not see these, nor is it limited by them.
    const shopRules = await call(server.url, "GET", "/v1/rules", { apiKey: shop.sk });
    expect(shopRules.body.data.rules.some((r: { name: string }) => r.name === "r0")).toBe(false);
  }, 60_000);
});

describe("rules: tenants", () => {
  it("never lets another organisation read, change or delete a rule, nor its rules touch the shop's answers", async () => {
    const other = await newOrg(server.url);
    const mine = await createRule({ name: "mine", enabled: false, action: "block", items: { item_id: ["p00"] } });
    const id = mine.body.data.rule_id as string;
    try {
      const body = { name: "theirs", enabled: true, action: "block", items: { item_id: ["p00"] } };
      expect((await call(server.url, "PUT", `/v1/rules/${id}`, { apiKey: other.sk, json: body })).status).toBe(404);
      expect((await call(server.url, "DELETE", `/v1/rules/${id}`, { apiKey: other.sk })).status).toBe(404);
      expect((await call(server.url, "GET", "/v1/rules", { apiKey: other.sk })).body.data.rules).toEqual([]);
      expect((await createRule(body, other)).status).toBe(201);
      expect(ids(await popular({ limit: 1 }))).toEqual(["p00"]);
    } finally {
      await call(server.url, "DELETE", `/v1/rules/${id}`, { apiKey: shop.sk });
    }
  });
});

describe("rules: what each action does", () => {
  it("block: the matching items are never returned, by the strategy or its fallbacks", async () => {
    await withRule({ name: "no B", action: "block", items: { brand: "B" } }, async () => {
      const got = ids(await popular({ limit: 40 }));
      expect(got.length).toBeGreaterThan(20);
      expect(got.filter((id) => id.startsWith("p") && brandOf(id) === "B")).toEqual([]);
      expect(got).toContain("quiet");
    });
    expect(ids(await popular({ limit: 3 }))).toEqual(["p00", "p01", "p02"]);
  });

  it("boost: multiplies the matching items' scores, raising an item from beyond the page into it, and pages continue each other", async () => {
    const before = await popular({ limit: 30 });
    const p25 = before.find((x) => x.item_id === "p25")!;
    await withRule({ name: "p25 up", action: "boost", factor: 50, items: { item_id: ["p25"] } }, async () => {
      const got = await popular({ limit: 5 });
      expect(got[0]!.item_id).toBe("p25");
      expect(got[0]!.score).toBeCloseTo(p25.score * 50, 4);
      expect(got[0]!.reason).toBe("popular");
      expect(await pages({}, 5, 3)).toEqual(ids(await popular({ limit: 15 })));
    });
  });

  it("bury: divides the matching items' scores, lowering them", async () => {
    await withRule({ name: "p00 down", action: "bury", factor: 0.5, items: { item_id: ["p00"] } }, async () => {
      const got = ids(await popular({ limit: 30 }));
      // p00 has 30 views: halved it ranks as 15 did (p15), just after it (earlier items first on ties).
      expect(got.indexOf("p00")).toBe(got.indexOf("p15") + 1);
      expect(got.slice(0, 2)).toEqual(["p01", "p02"]);
    });
  });

  it("pin: puts the best matching item at the position with reason pinned:{name}, on whichever page holds it", async () => {
    await withRule({ name: "cheap C", action: "pin", position: 3, items: { brand: "C", price: { min: 20 } } }, async () => {
      const got = await popular({ limit: 10 });
      // The best C item priced 20 or more is p20.
      expect(got[2]).toMatchObject({ item_id: "p20", reason: "pinned:cheap C" });
      expect(ids(got).slice(0, 4)).toEqual(["p00", "p01", "p20", "p02"]);
      expect(ids(got).filter((id) => id === "p20")).toHaveLength(1);
      expect(await pages({}, 2, 5)).toEqual(ids(await popular({ limit: 10 })));
    });
  });

  it("pin: takes a listed item the ranking does not hold", async () => {
    await withRule({ name: "quiet first", action: "pin", position: 1, items: { item_id: ["quiet"] } }, async () => {
      const got = await popular({ limit: 5 });
      expect(got[0]).toMatchObject({ item_id: "quiet", reason: "pinned:quiet first" });
      expect(got[0]!.score).toBeGreaterThan(0);
    });
  });

  it("promote: gives round(share × limit) slots of every page to the best matching items, with reason promoted:{name}", async () => {
    await withRule({ name: "cheap", action: "promote", share: 0.3, items: { price: { min: 20 } } }, async () => {
      const all = await pages({}, 10, 3);
      expect(new Set(all).size).toBe(all.length);
      for (let page = 1; page <= 3; page++) {
        const got = await popular({ limit: 10, page });
        expect(ids(got)).toEqual(all.slice((page - 1) * 10, page * 10));
        const promoted = got.filter((x) => x.reason === "promoted:cheap");
        expect(promoted).toHaveLength(3);
        for (const x of promoted) expect(Number(x.item_id.slice(1))).toBeGreaterThanOrEqual(20);
      }
      // The best matching ones first: p20, p21, p22 on page 1.
      expect(ids((await popular({ limit: 10 })).filter((x) => x.reason === "promoted:cheap"))).toEqual(["p20", "p21", "p22"]);
    });
  });
});

describe("rules: where and when they apply", () => {
  it("applies a rule limited to scenarios or strategies only there", async () => {
    const body = { name: "p29 first", action: "pin", position: 1, items: { item_id: ["p29"] } };
    await withRule({ ...body, scenarios: ["home"] }, async () => {
      expect((await popular({ scenario: "home", limit: 3 }))[0]!.item_id).toBe("p29");
      expect((await popular({ limit: 3 }))[0]!.item_id).toBe("p00");
      expect((await popular({ scenario: "cart", limit: 3 }))[0]!.item_id).toBe("p00");
    });
    await withRule({ ...body, strategies: ["trending"] }, async () => {
      expect((await popular({ limit: 3 }))[0]!.item_id).toBe("p00");
      const trending = await recommend(server.url, shop, { strategy: "trending", limit: 3 });
      expect(results(trending)[0]!.item_id).toBe("p29");
    });
  });

  it("respects starts_at and ends_at at request time", async () => {
    const body = { name: "timed", action: "pin", position: 1, items: { item_id: ["p28"] } };
    const first = async () => (await popular({ limit: 3 }))[0]!.item_id;
    await withRule({ ...body, ends_at: new Date(Date.now() - 1000).toISOString() }, async () => expect(await first()).toBe("p00"));
    await withRule({ ...body, starts_at: new Date(Date.now() - 1000).toISOString(), ends_at: "2999-01-01T00:00:00Z" }, async () =>
      expect(await first()).toBe("p28"),
    );
    const startsAt = Date.now() + 3000;
    await withRule({ ...body, starts_at: new Date(startsAt).toISOString() }, async () => {
      expect(await first()).toBe("p00");
      const later = await eventually(first, (v) => v === "p28", 8000);
      expect(later.value).toBe("p28");
      // It turned at starts_at (the server's clock is this one), not at the change.
      expect(Date.now()).toBeGreaterThanOrEqual(startsAt);
    });
  });

  it("does nothing while disabled, and applies from the next request once enabled", async () => {
    const r = await createRule({ name: "later", enabled: false, action: "pin", position: 1, items: { item_id: ["p27"] } });
    const id = r.body.data.rule_id as string;
    expect((await popular({ limit: 3 }))[0]!.item_id).toBe("p00");
    await call(server.url, "PUT", `/v1/rules/${id}`, {
      apiKey: shop.sk,
      json: { name: "later", enabled: true, action: "pin", position: 1, items: { item_id: ["p27"] } },
    });
    expect((await popular({ limit: 3 }))[0]!.item_id).toBe("p27");
    await call(server.url, "DELETE", `/v1/rules/${id}`, { apiKey: shop.sk });
    expect((await popular({ limit: 3 }))[0]!.item_id).toBe("p00");
  });
});

describe("rules never return what the request may not", () => {
  it("pin and promote leave out inactive, blocked, excluded and filtered-out items", async () => {
    const check = async (action: Record<string, unknown>) => {
      await withRule({ name: "block p05", action: "block", items: { item_id: ["p05"] } }, async () => {
        await withRule({ name: "push", ...action, items: { item_id: ["off", "p05", "p06", "p07"] } }, async () => {
          const got = await popular({ limit: 10, exclude_item_ids: ["p06"], filters: { brand: ["A", "C"] } });
          const all = ids(got);
          for (const banned of ["off", "p05", "p06", "p07"]) expect(all, JSON.stringify(action)).not.toContain(banned);
          expect(all.every((id) => brandOf(id) !== "B")).toBe(true);
          expect(got.filter((x) => x.reason.endsWith(":push"))).toHaveLength(0);
        });
      });
    };
    // p07 is brand B (filtered out), p06 excluded, p05 blocked, `off` inactive: nothing is left to pin or promote.
    await check({ action: "pin", position: 1 });
    await check({ action: "promote", share: 0.5 });
  });
});

describe("rules survive a restart", () => {
  it("still lists and applies a rule after the server restarts", async () => {
    const r = await createRule({ name: "kept", enabled: true, action: "pin", position: 1, items: { item_id: ["p26"] } });
    expect(r.status).toBe(201);
    expect(await server.stop()).toBe(0);
    server = await startServer({ reuse: server, env: { RATE_LIMIT_MAX: "100000" } });
    const listed = await call(server.url, "GET", "/v1/rules", { apiKey: shop.sk });
    expect(listed.body.data.rules.map((x: { name: string }) => x.name)).toContain("kept");
    const got = await eventually(
      () => recommend(server.url, shop, { strategy: "popular", limit: 3 }),
      (x) => x.status === 200,
      30_000,
    );
    expect(results(got.value)[0]).toMatchObject({ item_id: "p26", reason: "pinned:kept" });
  }, 120_000);
});
