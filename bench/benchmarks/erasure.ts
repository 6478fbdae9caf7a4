/**
 * `npm run bench:erasure`: how long erasing one user takes, by the size of the events table, and what ingestion
 * sees meanwhile (one client sending 100-event arrays back to back). `--events` rows written by SQL over the last
 * year (50,000 users, 100,000 items), of which `--user-events` are the erased user's, spread evenly. The time to
 * `done` includes ERASURE's waits for rows in flight.
 *   --events N (5,000,000)   --user-events N (100,000)   --chunk-blocks N (ERASURE_CHUNK_BLOCKS; the server's default)
 */
import pg from "pg";
import { connectionUrl } from "../kit/storage.js";
import { call, viewEvent } from "../kit/api.js";
import { readFlags } from "../kit/flags.js";
import { orgSeq, registerOrg } from "../kit/org.js";
import { withFreshServer } from "../kit/processes.js";
import { int, percentile } from "../kit/table.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import { pollUntil } from "../kit/poll.js";

const flags = readFlags({ events: {}, "user-events": {}, "chunk-blocks": {} });
const EVENTS = flags.number("events", 5_000_000, { min: 1 });
const USER_EVENTS = flags.number("user-events", 100_000, { min: 1 });
const INSERT_STEP = 1_000_000;

async function main(): Promise<void> {
  const chunkBlocks = flags.text("chunk-blocks");
  await withFreshServer(chunkBlocks ? { ERASURE_CHUNK_BLOCKS: chunkBlocks } : {}, async ({ url, storage }) => {
    const db = new pg.Pool({ connectionString: connectionUrl(storage), max: 2 });
    const org = await registerOrg(url);
    const seq = await orgSeq(db, org.orgId);
    const every = Math.max(1, Math.floor(EVENTS / USER_EVENTS));
    const started = performance.now();
    for (let from = 1; from <= EVENTS; from += INSERT_STEP) {
      await db.query(
        `INSERT INTO events (org, event_id, user_id, item_id, event_family, event_name, weight, occurred_at, received_at)
         SELECT $1, gen_random_uuid(), CASE WHEN g % $4 = 0 AND g / $4 <= $5 THEN 'erase-me' ELSE 'u' || (g % 50000) END,
                'i' || (g % 100000), 'engagement', 'view', 1, now() - (g % 365) * interval '1 day', now() - interval '1 minute'
         FROM generate_series($2::bigint, $3::bigint) g`,
        [seq, from, Math.min(EVENTS, from + INSERT_STEP - 1), every, USER_EVENTS],
      );
      log(`inserted ${int(Math.min(EVENTS, from + INSERT_STEP - 1))} events (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    await db.query("VACUUM ANALYZE events");
    const size = (
      await db.query<{ bytes: string; own: string }>("SELECT pg_total_relation_size('events') AS bytes, pg_relation_size('events') AS own")
    ).rows[0]!;
    const held = Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE user_id = 'erase-me'")).rows[0]!.n);

    // One client sending 100-event arrays back to back, its latencies kept with the time they were taken.
    const latencies: Array<{ at: number; ms: number }> = [];
    let sending = true;
    const ingest = (async () => {
      while (sending) {
        const body = Array.from({ length: 100 }, (_, k) => viewEvent(`live-${k}`, `i${k}`));
        const t = performance.now();
        const r = await call(`${url}/v1/events/ingest`, { key: org.pk, json: body });
        if (r.status !== 202) throw new Error(`ingest answered ${r.status}`);
        latencies.push({ at: t, ms: performance.now() - t });
      }
    })();
    await new Promise((r) => setTimeout(r, 5000));
    const asked = performance.now();
    const id = (await call(`${url}/v1/users/erase`, { key: org.sk, json: { user_ids: ["erase-me"] } })).json.data.erasure_id as string;
    const done = async () => {
      const state = (await call(`${url}/v1/users/erase/${id}`, { key: org.sk })).json.data as { status: string; deleted: Record<string, number> };
      return state.status === "done" ? state : undefined;
    };
    const state = await pollUntil(done, 200);
    const doneMs = performance.now() - asked;
    sending = false;
    await ingest;
    const before = latencies.filter((l) => l.at < asked).map((l) => l.ms);
    const during = latencies.filter((l) => l.at >= asked && l.at < asked + doneMs).map((l) => l.ms);
    const p = (xs: number[]) => `p50 ${percentile(xs, 0.5).toFixed(1)} ms, p99 ${percentile(xs, 0.99).toFixed(1)} ms (${xs.length} requests)`;
    console.log(
      [
        `events: ${int(EVENTS)} rows, ${int(Number(size.own) / 2 ** 20)} MB table, ${int(Number(size.bytes) / 2 ** 20)} MB with indexes; the user's: ${int(held)}`,
        `erasure: done ${(doneMs / 1000).toFixed(1)} s after the request; deleted ${JSON.stringify(state.deleted)}`,
        `ingest of 100-event arrays, one client: before ${p(before)}; during ${p(during)}`,
      ].join("\n"),
    );
    await db.end();
  });
}

runBenchmark(main);
