/**
 * One measured run against one setup's URL (HAProxy for the pair, the lone process directly): ingestion with
 * `n`-event requests, or one recommend strategy. Closed loop: autocannon with a fixed number of connections,
 * each sending its next request (built ahead of time) as soon as the previous one is answered, no overallRate.
 */
import { load } from "../traffic/autocannon.js";
import { drive } from "../traffic/drive.js";
import { ingestTarget, RequestPool } from "../traffic/requests.js";
import { log } from "../../kit/settings.js";
import { coresDuring, type Cores, type Watched } from "./cores.js";
import type { ViewEvents } from "../traffic/events.js";

/** A prebuilt pool never holds more events than this (memory); past it requests are built as they go. */
const MAX_POOL_EVENTS = 2_000_000;

export interface RunFigures {
  /** Successful answers per second (202 for ingestion, 200 for recommend). */
  reqPerS: number;
  /** Events per second (ingestion), else NaN. */
  eventsPerS: number;
  p50: number;
  p99: number;
  /** Answers that were not a success, and connection errors. */
  failed: number;
  cores: Cores;
}

export async function ingestRun(
  url: string,
  pk: string,
  n: number,
  connections: number,
  events: ViewEvents,
  w: Watched,
  durationS: number,
  warmupS: number,
): Promise<RunFigures> {
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
