/**
 * `npm run bench:memory`: what one process holds per organisation, by what it stores. Organisations of the seeded
 * synthetic shape are loaded one after another through the API, and after each the server is restarted on all
 * stored so far and measured (RSS, and the index items, users and bytes on /metrics): bytes per item, per user and
 * per event are the differences between stages.
 *   --scale X   (BENCH_SCALE) sizes times X (default 1: 100,000 items; 100,000 users; 20,000 users × 5,000 items
 *               with 500,000 then 1,500,000 events). Small stages are noisy: RSS moves by a few MB run to run.
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { call } from "../kit/api.js";
import { readFlags, POSITIVE } from "../kit/flags.js";
import { connectionUrl, prepareStorage, type Storage } from "../kit/storage.js";
import { orgSeq, registerOrg } from "../kit/org.js";
import { withServer } from "../kit/processes.js";
import { rssMb } from "../kit/proc.js";
import { waitForLog } from "../kit/serverLog.js";
import { loadOrganisation } from "./recommend/loadOrg.js";
import { int, table } from "../kit/table.js";
import { runBenchmark } from "../kit/run.js";
import { log } from "../kit/settings.js";
import type { SyntheticSpec } from "../kit/synthetic.js";

const SCALE = readFlags({ scale: { env: "BENCH_SCALE" } }).number("scale", 1, POSITIVE);
const n = (x: number) => Math.max(10, Math.round(x * SCALE));

const shape = (items: number, users: number, events: number, seed: number): SyntheticSpec => ({
  items,
  users,
  events,
  topics: Math.max(1, Math.min(200, Math.floor(items / 10))),
  days: 60,
  seed,
});

const ITEMS = n(100_000);
const USERS = n(100_000);
const E_ITEMS = n(5_000);
const E_USERS = n(20_000);
const E_FIRST = n(500_000);
const E_MORE = n(1_000_000);
/** `org`: a new organisation, or more data for the previous stage's; `per`, `count`: what the difference to the previous stage is divided by. */
const STAGES = [
  { name: `an organisation of ${int(ITEMS)} items (no users, no events)`, org: "new", spec: shape(ITEMS, 0, 0, 1), per: "item", count: ITEMS },
  { name: `an organisation of ${int(USERS)} users (no items, no events)`, org: "new", spec: shape(0, USERS, 0, 2), per: "user", count: USERS },
  {
    name: `an organisation of ${int(E_ITEMS)} items, ${int(E_USERS)} users, ${int(E_FIRST)} events`,
    org: "new",
    spec: shape(E_ITEMS, E_USERS, E_FIRST, 3),
    per: "event (its items and users included)",
    count: E_FIRST,
  },
  {
    name: `${int(E_MORE)} more events for it (same users and items)`,
    org: "same",
    spec: shape(E_ITEMS, E_USERS, E_MORE, 4),
    per: "event",
    count: E_MORE,
  },
];

const METRICS_TOKEN = "bench-memory-metrics-token";
const SERVER_ENV = { LOG_LEVEL: "info", METRICS_TOKEN };
/**
 * RSS is read every SAMPLE_MS for SETTLE_MS once the models are in, and the lowest kept: an idle process's heaps
 * shrink over the first tens of seconds (V8 collects what loading the tables left), by more than a small stage adds.
 */
const SETTLE_MS = 30_000;
const SAMPLE_MS = 5_000;
const TRAIN_TIMEOUT_MS = 20 * 60_000;

/** The sum over shards of one of the service's gauges, from its Prometheus text. */
function gauge(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/**
 * Starts the server on what is stored so far, waits for each organisation in `trainedOrgs` to have a model, settles,
 * measures, and stops it: resident memory, and what its recommender shards report on /metrics (items, users, and the
 * bytes of their typed arrays and models).
 */
function restartAndMeasure(storage: Storage, trainedOrgs: number[]) {
  return withServer(storage, SERVER_ENV, async ({ server, url }) => {
    for (const org of trainedOrgs) await waitForLog(server, "recommender model trained", (l) => Number(l.org) === org, TRAIN_TIMEOUT_MS);
    const samples: number[] = [];
    for (let waited = 0; waited < SETTLE_MS; waited += SAMPLE_MS) {
      await sleep(SAMPLE_MS);
      samples.push(rssMb(server.proc.pid));
    }
    log(`  RSS every ${SAMPLE_MS / 1000} s: ${samples.map((x) => x.toFixed(0)).join(", ")} MB`);
    const { status, text } = await call(`${url}/metrics`, { token: METRICS_TOKEN });
    if (status !== 200) throw new Error(`/metrics answered ${status}`);
    return {
      rssMb: Math.min(...samples),
      items: gauge(text, "recsvc_index_items"),
      users: gauge(text, "recsvc_index_users"),
      indexBytes: gauge(text, "recsvc_index_bytes"),
    };
  });
}

async function main(): Promise<void> {
  const storage = await prepareStorage();
  const rows: string[][] = [];
  try {
    log("the server on an empty database");
    let before = await restartAndMeasure(storage, []);
    rows.push(["empty database", int(before.rssMb), "", "", int(before.indexBytes), ""]);
    const trained: number[] = [];
    let keys: { pk: string; sk: string } | undefined;
    for (const stage of STAGES) {
      log(`loading ${stage.name}`);
      await withServer(storage, { LOG_LEVEL: "warn" }, async ({ url }) => {
        if (stage.org === "new" || !keys) {
          const org = await registerOrg(url);
          keys = { pk: org.pk, sk: org.sk };
          if (stage.spec.events > 0) {
            const db = new pg.Pool({ connectionString: connectionUrl(storage), max: 1 });
            trained.push(await orgSeq(db, org.orgId));
            await db.end();
          }
        }
        await loadOrganisation(url, keys, stage.spec, 8);
      });
      log("restarting on what is stored and measuring");
      const after = await restartAndMeasure(storage, trained);
      const rssBytes = (after.rssMb - before.rssMb) * 1024 * 1024;
      const indexBytes = after.indexBytes - before.indexBytes;
      rows.push([
        stage.name,
        int(after.rssMb),
        int(after.rssMb - before.rssMb),
        int(rssBytes / stage.count),
        int(after.indexBytes),
        `${int(indexBytes / stage.count)} per ${stage.per}`,
      ]);
      log(`  RSS ${after.rssMb.toFixed(0)} MB (+${(after.rssMb - before.rssMb).toFixed(0)}), index ${int(after.indexBytes)} bytes`);
      before = after;
    }
  } finally {
    await storage.release();
  }
  process.stdout.write(
    [
      "",
      `Memory per organisation — each stage loaded through the API, then the server restarted on all stored so far (scale ${SCALE})`,
      "RSS: resident set of the whole process once its index is built and its models trained, the lowest of 30 s idle; index: recsvc_index_bytes",
      "(users' histories and the models' typed arrays, summed over shards; the catalog's and co-occurrence's arrays are not in it).",
      table(["stage", "RSS MB", "+MB", "RSS bytes each", "index bytes", "index bytes each"], rows),
      "",
    ].join("\n"),
  );
}

runBenchmark(main);
