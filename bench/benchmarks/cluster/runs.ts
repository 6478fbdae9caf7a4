/**
 * One measured run against one setup's URL (HAProxy for the pair, the lone process directly): ingestion with
 * `n`-event requests, or one recommend strategy. Closed loop: autocannon with a fixed number of connections,
 * each sending its next request (built ahead of time) as soon as the previous one is answered, no overallRate.
 */
import { drive } from "../traffic/drive.js";
import { ingestTarget, load, RequestPool } from "../traffic/autocannon.js";
import { log } from "../../kit/settings.js";
import type { ViewEvents } from "../traffic/events.js";
import { coresDuring as coresOf, type Cores as CoresOf } from "../../kit/cpuShare.js";

/** A prebuilt pool never holds more events than this (memory); past it requests are built as they go. */
const MAX_POOL_EVENTS = 2_000_000;

/**
 * reqPerS: successful answers per second (202 for ingestion, 200 for recommend); eventsPerS: events per second
 * (ingestion), else NaN; failed: answers that were not a success, and connection errors.
 */
export type RunFigures = Awaited<ReturnType<typeof ingestRun>>;

export async function ingestRun(
  url: string,
  pk: string,
  n: number,
  connections: number,
  events: ViewEvents,
  w: Watched,
  durationS: number,
  warmupS: number,
) {
  const target = ingestTarget(url, pk);
  const body = (k: number) => events.body(k);
  const warm = await load({ target, connections, pool: new RequestPool(target, n, 0, body), durationS: warmupS });
  // Sized from the warm-up so that it lasts about `durationS` and every request is a fresh one built ahead.
  const amount = Math.max(connections * 4, Math.round(warm.reqPerS * durationS));
  const pool = new RequestPool(target, n, Math.min(amount + connections, Math.ceil(MAX_POOL_EVENTS / n)), body);
  const cores = coresDuring(w);
  const r = await load({ target, connections, pool, amount, durationS });
  return { reqPerS: r.reqPerS, eventsPerS: (r.accepted * n) / r.durationS, p50: r.p50, p99: r.p99, failed: r.other + r.errors, cores: cores() };
}

export async function recommendRun(
  url: string,
  pk: string,
  body: () => string,
  connections: number,
  w: Watched,
  durationS: number,
  warmupS: number,
): Promise<RunFigures> {
  const opts = {
    url: `${url}/v1/recommend`,
    headers: { "content-type": "application/json", "x-api-key": pk },
    body,
    connections,
    ours: { pid: undefined },
  };
  await drive({ ...opts, durationS: warmupS });
  const cores = coresDuring(w);
  const r = await drive({ ...opts, durationS });
  if (r.non2xx + r.errors > 0) log(`    ${r.non2xx} answers not 2xx, ${r.errors} errors`);
  return { reqPerS: r.reqPerS, eventsPerS: NaN, p50: r.p50, p99: r.p99, failed: r.non2xx + r.errors, cores: cores() };
}

/**
 * Cores busy during a run, by who: the lone process, the pair, HAProxy, PostgreSQL (embedded only), this
 * client, and work the benchmark did not start (the machine is shared: a run with other work busy says so).
 */
export type Cores = CoresOf<"lone" | "pair" | "haproxy">;

export interface Watched {
  lone: number;
  pair: number[];
  haproxy: number;
  /** The embedded cluster's DATA_DIR; undefined when external (its CPU then counts as other work). */
  dataDir: string | undefined;
}

/** Starts counting; call the returned function at the end of the run. */
export function coresDuring(w: Watched): () => Cores {
  return coresOf({ lone: [w.lone], pair: w.pair, haproxy: [w.haproxy] }, w.dataDir);
}

const QUIET_CORES = 0.1;
const QUIET_WINDOW_MS = 500;
/** Quiet windows in a row: a deferred retrain may start a moment after the load stops. */
const QUIET_WINDOWS = 3;

/**
 * Waits until the benchmark's processes are quiet (under QUIET_CORES between them for QUIET_WINDOWS windows of QUIET_WINDOW_MS), at
 * most `maxMs`, and returns how long that took. Between runs the processes just loaded still train the
 * organisation or apply the other's batches; a run started meanwhile would pay for the previous one.
 */
export async function settle(w: Watched, maxMs: number): Promise<number> {
  const start = performance.now();
  let quiet = 0;
  for (;;) {
    const during = coresDuring(w);
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    const c = during();
    const elapsed = performance.now() - start;
    quiet = c.lone + c.pair + c.haproxy + (c.postgres || 0) < QUIET_CORES ? quiet + 1 : 0;
    if (quiet === QUIET_WINDOWS || elapsed >= maxMs) return elapsed;
  }
}
