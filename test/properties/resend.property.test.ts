import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, newOrg } from "../helpers/api.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { event as anyEvent } from "./arbitraries/records.js";
import { orgSeq } from "./stored.js";

/**
 * "Stored once" within the dedup window (README, Deduplication): a resent event_id is stored once when it arrives
 * within EVENTS_DEDUP_DAYS (7) of the first copy, whether the two copies fall into different weeks' partitions of
 * `events`, and whether either carries a `timestamp`. The first copy's arrival is moved back in PostgreSQL (its row
 * into an earlier week's partition, its id's day in `event_ids`) as if it had come that long ago.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 12);
const SEED = process.env.PROPERTY_SEED === undefined ? {} : { seed: Number(process.env.PROPERTY_SEED) };
const DAY_MS = 86_400_000;
const WINDOW_MS = 7 * DAY_MS;
/** Room for the time the run itself takes between the shift and the resend. */
const MARGIN_MS = 5 * 60_000;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { RATE_LIMIT_MAX: "1000000" } });
});
afterAll(async () => {
  await server?.cleanup();
});

/** Milliseconds since this week's partition began (Monday 00:00 UTC). */
function sinceWeekStart(now: number): number {
  const day = Math.floor(now / DAY_MS);
  return now - (day - ((day + 3) % 7)) * DAY_MS;
}

const withId = fc.tuple(anyEvent, fc.uuid(), fc.boolean()).map(([e, id, stamped]) => {
  const out: Record<string, unknown> = { ...e, event_id: id };
  if (!stamped) delete out.timestamp;
  return out;
});

const resend = fc.record({
  events: fc.uniqueArray(withId, { minLength: 1, maxLength: 20, selector: (e) => String(e.event_id).toLowerCase() }),
  /** Where in the window the first copy arrived: at the far side of a partition boundary, or anywhere. */
  crossing: fc.boolean(),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  /** The resend drops every `timestamp` (the SDK's retry of an event refused for its timestamp alone), or keeps them. */
  dropTimestamps: fc.boolean(),
  fresh: fc.array(withId, { maxLength: 5 }),
});

describe("a resent event", () => {
  it(
    "is stored once within the dedup window, across a partition boundary and without a timestamp",
    async () => {
      let crossed = 0;
      let untimed = 0;
      await fc.assert(
        fc.asyncProperty(resend, async (r) => {
          const org = await newOrg(server.url);
          const seq = await orgSeq(server.db(), org.orgId);
          const first = await call(server.url, "POST", "/v1/events/ingest", { json: r.events, apiKey: org.pk });
          expect(first.status, JSON.stringify(first.body).slice(0, 500)).toBe(202);

          const now = Date.now();
          const since = sinceWeekStart(now);
          const low = r.crossing && since + MARGIN_MS < WINDOW_MS - MARGIN_MS ? since + MARGIN_MS : 0;
          const shiftMs = Math.round(low + r.at * (WINDOW_MS - MARGIN_MS - low));
          const db = server.db();
          await db.query("SELECT ensure_events_partition(now() - $1 * interval '1 millisecond')", [shiftMs]);
          await db.query("UPDATE events SET received_at = received_at - $2 * interval '1 millisecond' WHERE org = $1", [seq, shiftMs]);
          await db.query("UPDATE event_ids SET day = events_day(now() - $2 * interval '1 millisecond') WHERE org = $1", [seq, shiftMs]);
          const partitions = await db.query<{ n: number }>("SELECT count(DISTINCT tableoid)::int AS n FROM events WHERE org = $1", [seq]);
          const current = await db.query<{ p: string }>("SELECT ensure_events_partition(now()) AS p");
          const before = await db.query<{ p: string }>("SELECT DISTINCT tableoid::regclass::text AS p FROM events WHERE org = $1", [seq]);
          if (partitions.rows[0]!.n > 0 && before.rows.every((row) => row.p !== current.rows[0]!.p)) crossed++;

          const again = r.events.map((e) => {
            const copy = { ...e };
            if (r.dropTimestamps) delete copy.timestamp;
            if (copy.timestamp === undefined) untimed++;
            return copy;
          });
          const second = await call(server.url, "POST", "/v1/events/ingest", { json: [...r.fresh, ...again], apiKey: org.pk });
          expect(second.status, JSON.stringify(second.body).slice(0, 500)).toBe(202);
          expect(second.body.data.accepted).toBe(r.fresh.length + again.length);

          const { rows } = await db.query<{ id: string; n: number }>(
            "SELECT event_id::text AS id, count(*)::int AS n FROM events WHERE org = $1 GROUP BY event_id",
            [seq],
          );
          const want = new Map<string, number>();
          for (const e of [...r.events, ...r.fresh]) {
            const id = String(e.event_id).toLowerCase();
            want.set(id, (want.get(id) ?? 0) + 1);
          }
          // A fresh event whose id repeats one of the first copies is itself a resend: stored once all the same.
          for (const [id] of want) want.set(id, 1);
          expect(new Map(rows.map((row) => [row.id, row.n]))).toEqual(want);
        }),
        { numRuns: RUNS, ...SEED },
      );
      expect(crossed, "runs whose first copies all sat in an earlier week's partition").toBeGreaterThan(0);
      expect(untimed, "resent events without a timestamp").toBeGreaterThan(0);
    },
    Math.max(120_000, RUNS * 10_000),
  );
});
