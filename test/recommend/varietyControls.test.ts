import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocument } from "../../src/openapi/document.js";
import { newOrg, type Org } from "../helpers/api.js";
import { eventually, recommend, sendEvents, upsertItems, type EventSpec } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";

interface Result {
  item_id: string;
  score: number;
  reason: string;
  metadata: Record<string, unknown>;
}

const ITEMS = 90;
const OTHER_BRANDS = ["Zenith", "Nova", "Orbit"];
/** One brand dominates: four items in five are Acme, every fifth another brand in turn, and a few have no brand at all. */
function brandOf(k: number): string | undefined {
  if (k % 5 === 4) return OTHER_BRANDS[Math.floor(k / 5) % 3];
  if (k % 7 === 3) return undefined;
  return "Acme";
}
const attributesOf = (k: number) => ({ ...(brandOf(k) === undefined ? {} : { brand: brandOf(k) }), color: ["red", "blue", "green", "black"][k % 4] });
/** Items p0 … p89, p0 the most viewed: popular ranks them in order. */
const PLAIN = Array.from({ length: ITEMS }, (_, k) => `p${k}`);

let server: TestServer;
let shop: Org;

const results = (r: { body: { data: { results: Result[] } } }) => r.body.data.results;
const ids = (rs: Result[]) => rs.map((x) => x.item_id);
const brandOfId = (id: string) => brandOf(Number(id.slice(1)));

/** The spec of max_per with diversity 0: each page takes, in the plain order, the first items its caps allow. */
function cappedPages(order: string[], limit: number, caps: Record<string, number>, pages: number): string[][] {
  const left = [...order];
  const out: string[][] = [];
  for (let p = 0; p < pages; p++) {
    const page: string[] = [];
    const counts = new Map<string, number>();
    for (let k = 0; k < left.length && page.length < limit;) {
      const attributes: Record<string, unknown> = attributesOf(Number(left[k]!.slice(1)));
      const keys = Object.keys(caps)
        .filter((name) => attributes[name] !== undefined)
        .map((name) => [name, `${name}=${String(attributes[name])}`] as const);
      if (keys.some(([name, key]) => (counts.get(key) ?? 0) >= caps[name]!)) {
        k++;
        continue;
      }
      for (const [, key] of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
      page.push(left.splice(k, 1)[0]!);
    }
    out.push(page);
  }
  return out;
}

/** Jaccard of two results' attribute tokens (brand and colour), what a page's variety is measured by here. */
function kinship(a: Result, b: Result): number {
  const tokens = (r: Result) => new Set(["brand", "color"].filter((n) => r.metadata[n] !== undefined).map((n) => `${n}=${String(r.metadata[n])}`));
  const ta = tokens(a);
  const tb = tokens(b);
  const shared = [...ta].filter((t) => tb.has(t)).length;
  const union = new Set([...ta, ...tb]).size;
  return union === 0 ? 0 : shared / union;
}

function meanKinship(rs: Result[]): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < rs.length; i++)
    for (let j = i + 1; j < rs.length; j++) {
      sum += kinship(rs[i]!, rs[j]!);
      pairs++;
    }
  return sum / pairs;
}

beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "100000" } });
  shop = await newOrg(server.url);
  await upsertItems(
    server.url,
    shop,
    PLAIN.map((item_id, k) => ({ item_id, attributes: attributesOf(k) })),
  );
  // Item k is viewed by 100 − k users, each a fan of the item's brand (the model then places a brand's items together).
  const events: EventSpec[] = [];
  for (let k = 0; k < ITEMS; k++) {
    for (let u = 0; u < 100 - k; u++) events.push({ user: `${brandOf(k) ?? "none"}-fan${u}`, item: `p${k}`, hoursAgo: 2 });
  }
  await sendEvents(server.url, shop, events);
  await eventually(
    () => recommend(server.url, shop, { strategy: "popular", limit: ITEMS }),
    (r) => r.status === 200 && JSON.stringify(ids(results(r))) === JSON.stringify(PLAIN),
    30_000,
  );
}, 60_000);

afterAll(async () => {
  await server?.cleanup();
});

describe("max_per: at most n results per value of an attribute on a page", () => {
  it("holds each page of a catalog one brand dominates to 2 of it, filled in order by the others and by items without a brand", async () => {
    const expected = cappedPages(PLAIN, 10, { brand: 2 }, 3);
    for (let page = 1; page <= 3; page++) {
      const r = await recommend(server.url, shop, { strategy: "popular", limit: 10, page, max_per: { brand: 2 } });
      expect(r.status).toBe(200);
      const got = ids(results(r));
      expect(got, `page ${page}`).toEqual(expected[page - 1]);
      expect(got.filter((id) => brandOfId(id) === "Acme").length).toBe(2);
      expect(got.some((id) => brandOfId(id) === undefined)).toBe(true);
      expect(r.body.data.pagination.has_next).toBe(true);
      // Each result keeps the strategy's score and reason.
      for (const x of results(r)) expect(x.reason).toBe("popular");
    }
  });

  it("continues page 1 on page 2 without repeating an item, the first Acme items page 1 left over first", async () => {
    const body = { strategy: "popular", limit: 10, max_per: { brand: 2 } };
    const first = ids(results(await recommend(server.url, shop, { ...body, page: 1 })));
    const second = ids(results(await recommend(server.url, shop, { ...body, page: 2 })));
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    expect(second[0]).toBe(PLAIN.find((id) => !first.includes(id)));
    expect(ids(results(await recommend(server.url, shop, { ...body, page: 1 })))).toEqual(first);
  });

  it("ends the results with a short last page when too few candidates fit the caps, never exceeding one", async () => {
    // Eight Acme items and three others: a page of 10 with at most 2 Acme holds 5, and nothing follows it.
    const acme = PLAIN.filter((id) => brandOfId(id) === "Acme").slice(0, 8);
    const others = PLAIN.filter((id) => brandOfId(id) !== undefined && brandOfId(id) !== "Acme").slice(0, 3);
    const r = await recommend(server.url, shop, { strategy: "popular", limit: 10, candidates: [...acme, ...others], max_per: { brand: 2 } });
    expect(r.status).toBe(200);
    expect(ids(results(r)).sort()).toEqual([...acme.slice(0, 2), ...others].sort());
    expect(r.body.data.pagination.has_next).toBe(false);
  });

  it("caps several attributes at once, each value of each", async () => {
    const caps = { brand: 3, color: 3 };
    for (let page = 1; page <= 2; page++) {
      const r = await recommend(server.url, shop, { strategy: "popular", limit: 10, page, max_per: caps });
      expect(ids(results(r)), `page ${page}`).toEqual(cappedPages(PLAIN, 10, caps, 2)[page - 1]);
      expect(ids(results(r))).toHaveLength(10);
    }
  });
});

describe("diversity: relevance traded for variety on each page", () => {
  it("answers exactly as without it at 0, for every kind of strategy", async () => {
    for (const body of [
      { strategy: "popular", limit: 20 },
      { strategy: "popular", limit: 10, page: 3 },
      { strategy: "personalized", user_id: "Acme-fan3", limit: 10 },
      { strategy: "similar", context_item_id: "p4", limit: 10 },
      { strategy: "also-viewed", context_item_id: "p0", limit: 10 },
    ]) {
      const plain = await recommend(server.url, shop, body);
      const zero = await recommend(server.url, shop, { ...body, diversity: 0 });
      expect(zero.status).toBe(200);
      expect(results(zero), JSON.stringify(body)).toEqual(results(plain));
      expect(zero.body.data.pagination).toEqual(plain.body.data.pagination);
      expect(zero.body.data.mode).toBe(plain.body.data.mode);
    }
  });

  it("at 1 shows more brands and results less alike than at 0, starting with the same best item", async () => {
    const at = async (diversity: number) => results(await recommend(server.url, shop, { strategy: "popular", limit: 10, diversity }));
    const none = await at(0);
    const full = await at(1);
    const half = await at(0.5);
    const brands = (rs: Result[]) => new Set(rs.map((x) => x.metadata.brand ?? "(none)")).size;
    expect(full[0]!.item_id).toBe(none[0]!.item_id);
    expect(brands(full)).toBeGreaterThan(brands(none));
    expect(meanKinship(full)).toBeLessThan(meanKinship(none));
    expect(meanKinship(half)).toBeLessThanOrEqual(meanKinship(none));
    expect(new Set(ids(full)).size).toBe(10);
  });

  it("continues page 1 on page 2 without repeating an item, alone and with max_per", async () => {
    for (const extra of [{}, { max_per: { brand: 2 } }]) {
      const body = { strategy: "popular", limit: 10, diversity: 0.8, ...extra };
      const first = ids(results(await recommend(server.url, shop, { ...body, page: 1 })));
      const second = ids(results(await recommend(server.url, shop, { ...body, page: 2 })));
      const third = ids(results(await recommend(server.url, shop, { ...body, page: 3 })));
      expect(first).toHaveLength(10);
      expect(second).toHaveLength(10);
      expect(new Set([...first, ...second, ...third]).size).toBe(30);
      expect(ids(results(await recommend(server.url, shop, { ...body, page: 1 })))).toEqual(first);
    }
  });
});

describe("validation", () => {
  it("answers 400 validation_error naming the field for a diversity or max_per out of bounds", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ diversity: -0.1 }, "diversity"],
      [{ diversity: 1.5 }, "diversity"],
      [{ diversity: "high" }, "diversity"],
      [{ max_per: {} }, "max_per"],
      [{ max_per: { brand: 0 } }, "max_per.brand"],
      [{ max_per: { brand: 1.5 } }, "max_per.brand"],
      [{ max_per: { brand: "2" } }, "max_per.brand"],
      [{ max_per: { brand: 101 } }, "max_per.brand"],
      [{ max_per: [2] }, "max_per"],
      [{ max_per: { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1 } }, "max_per"],
      [{ max_per: JSON.parse('{"__proto__": 1}') as object }, "max_per"],
      [{ diversity: 0.5, limit: 100, page: 11 }, "page"],
      [{ max_per: { brand: 1 }, limit: 50, page: 21 }, "page"],
    ];
    for (const [body, field] of cases) {
      const r = await recommend(server.url, shop, { strategy: "popular", ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe("validation_error");
      expect(r.body.message, JSON.stringify(body)).toContain(field);
    }
    // Deep pages stay open without either control.
    expect((await recommend(server.url, shop, { strategy: "popular", limit: 100, page: 11, diversity: 0 })).status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("describes diversity (0-1) and max_per (attribute → integer 1-100, up to 5) on the recommend request", () => {
    type Schema = { properties: Record<string, Record<string, unknown>> };
    const schema = buildDocument().components.schemas!.RecommendRequest as Schema;
    expect(schema.properties.diversity).toMatchObject({ type: "number", minimum: 0, maximum: 1, description: expect.stringContaining("variety") });
    expect(schema.properties.max_per).toMatchObject({
      type: "object",
      maxProperties: 5,
      additionalProperties: { type: "integer", minimum: 1, maximum: 100 },
      description: expect.stringContaining("at most n results per value"),
    });
  });
});
