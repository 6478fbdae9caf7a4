/**
 * The server restarted on what is stored so far and measured once it has settled: resident memory, and what its
 * recommender shards report on /metrics (items, users, and the bytes of their typed arrays and models).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { call } from "../../kit/api.js";
import type { Storage } from "../../kit/storage.js";
import { withServer } from "../../kit/processes.js";
import { rssMb } from "../../kit/proc.js";
import { waitForLog } from "../../kit/serverLog.js";
import { log } from "../../kit/settings.js";

export const METRICS_TOKEN = "bench-memory-metrics-token";
const SERVER_ENV = { LOG_LEVEL: "info", METRICS_TOKEN };
/**
 * RSS is read every SAMPLE_MS for SETTLE_MS once the models are in, and the lowest kept: an idle process's heaps
 * shrink over the first tens of seconds (V8 collects what loading the tables left), by more than a small stage adds.
 */
const SETTLE_MS = 30_000;
const SAMPLE_MS = 5_000;
const TRAIN_TIMEOUT_MS = 20 * 60_000;

export type Measured = Awaited<ReturnType<typeof restartAndMeasure>>;

/** The sum over shards of one of the service's gauges, from its Prometheus text. */
function gauge(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

/** Starts the server, waits for each organisation in `trainedOrgs` to have a model, settles, measures, and stops it. */
export function restartAndMeasure(storage: Storage, trainedOrgs: number[]) {
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
