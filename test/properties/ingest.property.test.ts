import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg, type ApiResponse, type Org } from "../helpers/api.js";
import { eventually, recommend } from "../helpers/recommend.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { invalidRequest, type InvalidRequest } from "./arbitraries/invalid.js";
import { scenario, type Scenario } from "./arbitraries/records.js";
import { expectedRecentlyViewed, type RecentlyViewed } from "./recentlyViewed.js";
import { expectServerHealthy } from "./serverHealth.js";
import { expectScenarioStored, orgSeq, rowCounts } from "./stored.js";

/**
 * Generated records through the whole path: HTTP, validation, the writer threads, PostgreSQL and the
 * recommender threads' index. PROPERTY_RUNS sets the runs per property (CI: the small default; a long run:
 * PROPERTY_RUNS=500); PROPERTY_SEED replays a run that fast-check reported.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 12);
const SEED = process.env.PROPERTY_SEED === undefined ? {} : { seed: Number(process.env.PROPERTY_SEED) };
const TIMEOUT_MS = Math.max(120_000, RUNS * 10_000);
const MIB = 1024 * 1024;
const BODY_MAX = 5 * MIB;
const METRICS_TOKEN = randomBytes(16).toString("hex");

let server: TestServer;
beforeAll(async () => {
  // Each run registers an organisation; the API limit would otherwise stop a long run.
  server = await startServer({ env: { METRICS_TOKEN, RATE_LIMIT_MAX: "1000000" } });
});
afterAll(async () => {
  await server?.cleanup();
});

const PATHS = { items: "/v1/items/upsert", users: "/v1/users/upsert", events: "/v1/events/ingest" } as const;
type Kind = keyof typeof PATHS;
const keyFor = (org: Org, kind: Kind) => (kind === "events" ? org.pk : org.sk);

function send(org: Org, kind: Kind, records: unknown[], bare: boolean): Promise<ApiResponse> {
  const json = bare && records.length === 1 ? records[0] : records;
  return call(server.url, "POST", PATHS[kind], { json, apiKey: keyFor(org, kind) });
}

const nowMicros = () => BigInt(Date.now()) * 1000n;

/** Sends a scenario's non-empty lists (items and users first, so that its events meet a known catalog). */
async function sendScenario(org: Org, s: Scenario): Promise<{ from: bigint; to: bigint }> {
  let receipt = { from: 0n, to: 0n };
  for (const kind of ["items", "users", "events"] as const) {
    const records = s[kind];
    if (records.length === 0) continue;
    const from = nowMicros() - 1000n;
    const r = await send(org, kind, records, s.bare[kind]);
    expect(r.status, `${kind}: ${JSON.stringify(r.body).slice(0, 2000)}`).toBe(202);
    expect(r.body).toMatchObject({ success: true, data: { accepted: records.length }, error: null });
    if (kind === "events") receipt = { from, to: nowMicros() + 1000n };
  }
  return receipt;
}

async function recentlyViewed(org: Org, userId: string): Promise<{ mode: string; items: string[] }> {
  const r = await recommend(server.url, org, { strategy: "recently-viewed", user_id: userId, limit: 100 });
  expect(r.status, JSON.stringify(r.body).slice(0, 2000)).toBe(200);
  return { mode: r.body.data.mode, items: r.body.data.recommended_items };
}

/** The index answers for the user as the scenario determines, within the contract's 5 s. */
async function expectIndexed(org: Org, want: RecentlyViewed): Promise<void> {
  const exact = (got: { mode: string; items: string[] }) =>
    want.hidden
      ? got.mode === "fallback"
      : got.mode !== "fallback" && got.items.length === want.items.size && got.items.every((i) => want.items.has(i));
  const { value } = await eventually(() => recentlyViewed(org, want.userId), exact, 5000);
  const label = `recently-viewed for ${JSON.stringify(want.userId)}${want.hidden ? " (hidden user)" : ""}`;
  if (want.hidden) expect(value.mode, label).toBe("fallback");
  else
    expect({ mode: value.mode === "fallback" ? "fallback" : "answered", items: [...value.items].sort() }, label).toEqual({
      mode: "answered",
      items: [...want.items].sort(),
    });
}

describe("ingestion of generated contract-valid records", () => {
  it(
    "stores every accepted item, user and event exactly once as sent, and each reaches recommendations",
    async () => {
      let answersChecked = 0;
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const org = await newOrg(server.url);
          const seq = await orgSeq(server.db(), org.orgId);
          const receipt = await sendScenario(org, s);
          await expectScenarioStored(server.db(), seq, s, receipt);
          const wanted = expectedRecentlyViewed(s);
          await Promise.all(wanted.map((want) => expectIndexed(org, want)));
          answersChecked += wanted.length;
        }),
        { numRuns: RUNS, ...SEED },
      );
      expect(answersChecked, "recommendation answers checked against the index").toBeGreaterThan(0);
      await expectServerHealthy(server, METRICS_TOKEN);
    },
    TIMEOUT_MS,
  );
});

describe("ingestion of generated contract-invalid records", () => {
  let org: Org;
  let seq: number;
  beforeAll(async () => {
    org = await newOrg(server.url);
    seq = await orgSeq(server.db(), org.orgId);
  });

  /** Where the message must point: `items[3].item_id`, `item.item_id` for a bare object, `items[3]` for the record. */
  function expectedPath(req: InvalidRequest): string {
    const { kind, field } = req.broken;
    const at = req.index === undefined ? kind.slice(0, -1) : `${kind}[${req.index}]`;
    return field === "" ? `${at}:` : `${at}.${field}:`;
  }

  it(
    "answers 400 validation_error naming the broken record's index and field, and stores nothing of the request",
    async () => {
      await fc.assert(
        fc.asyncProperty(invalidRequest, async (req) => {
          const before = await rowCounts(server.db(), seq);
          const r = await send(org, req.broken.kind, req.records, req.index === undefined);
          expect(r.status, `${req.broken.field || "record"} (${req.broken.why}): ${JSON.stringify(r.body).slice(0, 500)}`).toBe(400);
          expect(r.body).toMatchObject({ success: false, error: "validation_error" });
          expect(r.body.message).toContain(expectedPath(req));
          if (req.broken.unknownKey !== undefined) expect(r.body.message).toContain(`'${req.broken.unknownKey}'`);
          expect(await rowCounts(server.db(), seq)).toEqual(before);
        }),
        { numRuns: RUNS * 4, ...SEED },
      );
      await expectServerHealthy(server, METRICS_TOKEN);
    },
    TIMEOUT_MS,
  );
});

describe("request bodies at the edges", () => {
  type Body = { how: "truncated" | "trailing" | "over" | "exact"; cut: number; pad: number };
  const bodyCase = fc.record({
    s: scenario.filter((s) => s.events.length > 0),
    how: fc.constantFrom<Body["how"]>("truncated", "trailing", "over", "exact"),
    cut: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
    pad: fc.integer({ min: 1, max: 4096 }),
  });

  /** The events of a scenario as a body: cut short (maybe inside a UTF-8 sequence), followed by junk, or padded. */
  function bodyOf(events: unknown[], { how, cut, pad }: Body): Buffer {
    const json = Buffer.from(JSON.stringify(events));
    if (how === "truncated") return json.subarray(0, 1 + Math.floor(cut * (json.length - 1)));
    if (how === "trailing") return Buffer.concat([json, Buffer.from(["x", ",", "]", "}", "[]"][pad % 5]!)]);
    const size = how === "over" ? BODY_MAX + pad : BODY_MAX;
    return Buffer.concat([json, Buffer.alloc(size - json.length, " ")]); // whitespace keeps it valid JSON
  }

  it(
    "answers 400 invalid_json to a broken body and 413 payload_too_large past 5 MiB, storing nothing; takes exactly 5 MiB",
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyCase, async ({ s, ...how }) => {
          const org = await newOrg(server.url);
          const seq = await orgSeq(server.db(), org.orgId);
          const raw = bodyOf(s.events, how);
          const r = await call(server.url, "POST", PATHS.events, { raw, contentType: "application/json", apiKey: org.pk });
          const counts = await rowCounts(server.db(), seq);
          if (how.how === "exact") {
            expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(202);
            expect(counts.events).toBe(new Set(s.events.map((e, i) => e.event_id?.toLowerCase() ?? i)).size);
            return;
          }
          const want = how.how === "over" ? [413, "payload_too_large"] : [400, "invalid_json"];
          expect([r.status, r.body.error], JSON.stringify(r.body).slice(0, 500)).toEqual(want);
          expect(counts).toEqual({ items: 0, users: 0, events: 0, aliases: 0, status_changes: 0 });
        }),
        { numRuns: RUNS, ...SEED },
      );
      await expectServerHealthy(server, METRICS_TOKEN);
    },
    TIMEOUT_MS,
  );
});

describe("the server under generated traffic", () => {
  it("restarted no recommender thread, skipped no record and logged no error", async () => {
    await expectServerHealthy(server, METRICS_TOKEN);
  });
});
