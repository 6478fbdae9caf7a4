import { describe, expect, it } from "vitest";
import { isPlainValidItem, isPlainValidUser } from "../../src/ingest/plainRecord.js";
import { ItemSchema, UserSchema } from "../../src/ingest/schemas.js";

/** A seeded generator, so that a failing case can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const IDENTIFIERS = ["a1", "item-7", "x".repeat(256), "x".repeat(257), "", "tab\there", "nul\u0000", "é ü ✓", 7, null, ["a"]];
const STATUSES = ["active", "inactive", "deleted", "Active", "", null, 1];
const TIMESTAMPS = [
  "2024-05-01T10:00:00Z",
  "2024-05-01T10:00:00.123+02:00",
  "2024-05-01",
  "0000-01-01T00:00:00Z",
  "2024-13-01T00:00:00Z",
  "yesterday",
  1714557600,
  null,
];
const VALUES = ["red", "", 19.5, -3, 1e308, Infinity, NaN, true, null, ["a"], { n: 1 }, "nul\u0000", "lone \ud800", "pair 😀", "y".repeat(6_000)];
const KEYS = ["brand", "price", "", "k\u0000", "size"];

function pick<T>(rnd: () => number, list: readonly T[]): T {
  return list[Math.floor(rnd() * list.length)]!;
}

function attributes(rnd: () => number): unknown {
  if (rnd() < 0.1) return pick(rnd, [null, "flat", ["a"], 3]);
  const out: Record<string, unknown> = {};
  const n = Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) out[pick(rnd, KEYS)] = pick(rnd, VALUES);
  return out;
}

/** A record with each field present or absent, valid or not, and now and then an unknown field. */
function record(rnd: () => number, fields: Record<string, (rnd: () => number) => unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, make] of Object.entries(fields)) if (rnd() < 0.9) out[key] = make(rnd);
  if (rnd() < 0.05) out.extra = 1;
  return out;
}

const ITEM_FIELDS = {
  item_id: (r: () => number) => pick(r, IDENTIFIERS),
  item_type: (r: () => number) => pick(r, IDENTIFIERS),
  status: (r: () => number) => pick(r, STATUSES),
  created_at: (r: () => number) => pick(r, TIMESTAMPS),
  attributes,
};
const USER_FIELDS = {
  user_id: (r: () => number) => pick(r, IDENTIFIERS),
  status: (r: () => number) => pick(r, STATUSES),
  created_at: (r: () => number) => pick(r, TIMESTAMPS),
  attributes,
};

describe("the plain-record check that spares zod on the front thread", () => {
  for (const [name, vouch, schema, fields] of [
    ["items", isPlainValidItem, ItemSchema, ITEM_FIELDS],
    ["users", isPlainValidUser, UserSchema, USER_FIELDS],
  ] as const) {
    it(`vouches only for ${name} the schema accepts, over 100,000 generated records`, () => {
      const rnd = random(name.length);
      let vouched = 0;
      let valid = 0;
      for (let i = 0; i < 100_000; i++) {
        const r = record(rnd, fields);
        const ok = schema.safeParse(r).success;
        if (ok) valid++;
        if (vouch(r)) {
          vouched++;
          expect(ok, JSON.stringify(r).slice(0, 300)).toBe(true);
        }
      }
      // It must also do its job: most valid records are plain enough to be vouched for.
      expect(valid).toBeGreaterThan(300);
      expect(vouched / valid).toBeGreaterThan(0.5);
    });
  }
});
