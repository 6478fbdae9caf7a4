import { describe, expect, it } from "vitest";
import { plainRecommend } from "../../src/recommend/plainRecommend.js";
import { RecommendSchema } from "../../src/recommend/schema.js";

/** A seeded generator, so that a failing case can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

const IDENTIFIERS = ["u1", "item-7", "x".repeat(256), "x".repeat(257), "", "tab\there", "del\u007f", "é ü ✓", 7, null, ["a"], true];
const FIELDS: Record<string, readonly unknown[]> = {
  strategy: ["personalized", "similar", "popular", "buy-again", "new-arrivals", "also-viewed", "Popular", "", 3, null],
  scenario: ["home", "product-page", "cart_2", "s".repeat(64), "s".repeat(65), "Home", "-x", "", "a b", 5, null],
  user_id: IDENTIFIERS,
  context_item_id: IDENTIFIERS,
  item_type: IDENTIFIERS,
  exclude_seen: [true, false, "true", 0, null],
  limit: [1, 20, 100, 101, 0, -1, 2.5, "20", null, 1e300],
  page: [1, 2, 100, 101, 10_000, 0, -3, 1.5, "2", 2 ** 53, null],
  filters: [{ brand: "x" }, {}, null],
  exclude_item_ids: [["a"], []],
  fields: [["title"]],
  extra: [1],
};

/** Short lists of candidates, valid and not: each generated body is also checked with one of them. */
const CANDIDATE_LISTS: readonly unknown[] = [
  ["a", "b", "a"],
  ["é ü ✓", "x".repeat(256), "🎉"],
  ["i1"],
  [],
  ["a", 7],
  ["a", "tab\there"],
  ["x".repeat(257)],
  ["a", ""],
  ["\ud800"],
  [null],
  "a",
  null,
];

/** A body with each field present or absent, valid or not; the rarer fields less often. */
function body(rnd: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(FIELDS)) {
    const often = ["filters", "exclude_item_ids", "fields", "extra"].includes(key) ? 0.03 : 0.6;
    if (rnd() < often) out[key] = pick(rnd, values);
  }
  return out;
}

/** The fields that are set: the check gives absent ones as undefined, which every reader takes alike. */
function present(o: object): object {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

describe("the plain recommend body check that spares zod on the front thread", () => {
  it("vouches only for bodies the schema accepts, and gives what the schema gives, over 100,000 generated bodies", () => {
    const rnd = random(42);
    const listRnd = random(43);
    let vouched = 0;
    let valid = 0;
    let validWithList = 0;
    let vouchedWithList = 0;
    for (let i = 0; i < 100_000; i++) {
      const b = body(rnd);
      const r = RecommendSchema.safeParse(b);
      if (r.success) valid++;
      const plain = plainRecommend(b);
      if (plain) {
        vouched++;
        expect(r.success, JSON.stringify(b)).toBe(true);
        expect(present(plain), JSON.stringify(b)).toStrictEqual(r.data);
      }
      // The same body with candidates (its own generator: the bodies above stay those of the seed); of the
      // invalid bodies, a sample (zod's refusals are slow).
      if (!r.success && i % 10 !== 0) continue;
      const listed = { ...b, candidates: pick(listRnd, CANDIDATE_LISTS) };
      const rl = RecommendSchema.safeParse(listed);
      if (rl.success) validWithList++;
      const plainListed = plainRecommend(listed);
      if (plainListed) {
        vouchedWithList++;
        expect(rl.success, JSON.stringify(listed)).toBe(true);
        expect(present(plainListed), JSON.stringify(listed)).toStrictEqual(rl.data);
      }
    }
    // It must also do its job: most valid bodies are plain enough to be vouched for.
    expect(valid).toBeGreaterThan(1_000);
    expect(vouched / valid).toBeGreaterThan(0.8);
    expect(validWithList).toBeGreaterThan(200);
    expect(vouchedWithList / validWithList).toBeGreaterThan(0.8);
  });

  it("leaves bodies with filters, exclusions or fields to the schema", () => {
    const base = { strategy: "popular" };
    expect(present(plainRecommend(base)!)).toStrictEqual({ strategy: "popular", scenario: "default", limit: 20, page: 1 });
    for (const extra of [{ filters: {} }, { exclude_item_ids: [] }, { fields: ["title"] }]) {
      expect(plainRecommend({ ...base, ...extra })).toBeUndefined();
    }
  });

  it("gives a diversity as the schema does, and leaves one out of bounds, or past its page depth, to the schema", () => {
    for (const diversity of [0, 0.25, 1, 1.5, -0.1, "0.5", null]) {
      for (const paging of [{}, { limit: 100, page: 10 }, { limit: 100, page: 11 }]) {
        const b = { strategy: "popular", diversity, ...paging };
        const r = RecommendSchema.safeParse(b);
        const plain = plainRecommend(b);
        expect(plain !== undefined, JSON.stringify(b)).toBe(r.success);
        if (plain) expect(present(plain), JSON.stringify(b)).toStrictEqual(r.data);
      }
    }
  });

  it("gives candidates as the schema does (the caller's list as it is, duplicates kept), and leaves any list the schema refuses to it", () => {
    const longest = Array.from({ length: 500 }, (_, k) => `i${k}`);
    for (const candidates of [...CANDIDATE_LISTS, longest, [...longest, "i500"], [...longest.slice(1), 7]]) {
      const b = { strategy: "personalized", user_id: "u1", candidates };
      const r = RecommendSchema.safeParse(b);
      const plain = plainRecommend(b);
      expect(plain !== undefined, JSON.stringify(b)).toBe(r.success);
      if (plain) expect(present(plain), JSON.stringify(b)).toStrictEqual(r.data);
    }
  });

  it("leaves a body whose own key is __proto__ to the schema", () => {
    expect(plainRecommend(JSON.parse('{"strategy":"popular","__proto__":{"limit":5}}') as object)).toBeUndefined();
  });
});
