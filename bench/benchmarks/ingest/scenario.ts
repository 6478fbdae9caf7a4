/** One measured scenario: the real server ingesting `n`-event requests, with its CPU and what got stored. */
import type pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds, postgresCpuSeconds, threadCpu, usPer } from "../../kit/proc.js";
import { load, ingestTarget, RequestPool } from "../traffic/autocannon.js";
import { cpuShare } from "../../kit/cpuShare.js";
import { pct } from "../../kit/table.js";
import { connectionsFor, DURATION_S, log, WARMUP_S } from "../../kit/settings.js";

/** A prebuilt pool never holds more events than this (memory). */
const MAX_POOL_EVENTS = 3_000_000;

export interface Bench {
  url: string;
  pk: string;
  org: number;
  db: pg.Pool;
  serverPid: number | undefined;
  /** The embedded cluster's, for its CPU; undefined when external. */
  dataDir: string | undefined;
}

export type ScenarioResult = Awaited<ReturnType<typeof ingestScenario>>;

export async function ingestScenario(b: Bench, n: number) {
  const connections = connectionsFor(n);
  const target = ingestTarget(b.url, b.pk);
  log(`  ${n}-event requests: warm-up ${WARMUP_S}s (-c ${connections})`);
  const warm = await load({ target, connections, pool: new RequestPool(target, n, 0), durationS: WARMUP_S });
  // Size the measured run from the warm-up rate so that it lasts about DURATION_S and can be counted exactly.
  const amount = Math.max(connections * 4, Math.round(warm.reqPerS * DURATION_S));
  const pool = new RequestPool(target, n, Math.min(amount + connections, Math.ceil(MAX_POOL_EVENTS / n)));
  const before = await settle(b.db, b.org);
  const commitsBefore = await commits(b.db);
  log(`  ${n}-event requests: ${amount} requests (about ${DURATION_S}s)`);
  const threadsBefore = threadCpu(b.serverPid);
  const cpuBefore = cpuSeconds(b.serverPid);
  const pgBefore = postgresCpuSeconds(b.dataDir);
  const share = cpuShare({ pid: b.serverPid, dataDir: b.dataDir });
  const r = await load({ target, connections, pool, amount });
  const { otherCores } = share();
  const cpuAfter = cpuSeconds(b.serverPid);
  const pgAfter = postgresCpuSeconds(b.dataDir);
  log(`  server threads (cores busy): ${busyThreads(b.serverPid, threadsBefore, r.durationS, cpuAfter.all - cpuBefore.all)}`);
  const after = await settle(b.db, b.org);
  const commitsAfter = await commits(b.db);
  return {
    n,
    connections,
    load: r,
    eventsPerS: (r.accepted * n) / r.durationS,
    stored: after - before,
    expected: r.accepted * n,
    commits: commitsAfter - commitsBefore,
    // CPU time of the server's front (main) thread per request, in microseconds.
    frontCpuUsPerReq: usPer(cpuAfter.main - cpuBefore.main, r.requests),
    // CPU seconds per second used by the whole server process (front + writer threads), and by PostgreSQL (embedded only).
    serverCpuShare: (cpuAfter.all - cpuBefore.all) / r.durationS,
    postgresCpuShare: (pgAfter - pgBefore) / r.durationS,
    // Server + PostgreSQL CPU per stored event, in microseconds: the cost under any contention.
    cpuUsPerEvent: usPer(cpuAfter.all - cpuBefore.all + pgAfter - pgBefore, r.accepted * n),
    // Cores busy in processes the benchmark did not start (the machine is shared): a figure to distrust when high.
    otherCores,
  };
}

/**
 * The server's threads busy at least 1% of a core since `before`, busiest first, then what threads that ended
 * meanwhile used (model training runs in a thread of its own that ends with it).
 */
function busyThreads(pid: number | undefined, before: Map<string, number>, seconds: number, processSeconds: number): string {
  const shares = [...threadCpu(pid)].map(([t, after]) => [t, (after - (before.get(t) ?? 0)) / seconds] as const);
  const ended = processSeconds / seconds - shares.reduce((sum, [, share]) => sum + share, 0);
  return shares
    .filter(([, share]) => share >= 0.01)
    .sort((a, b) => b[1] - a[1])
    .map(([t, share]) => `${t} ${pct(share)}`)
    .concat(`threads that ended ${pct(Math.max(0, ended))}`)
    .join(", ");
}

async function countEvents(db: pg.Pool, org: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE org = $1", [org]);
  return Number(rows[0].n);
}

async function commits(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ n: string }>("SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()");
  return Number(rows[0].n);
}

/** The org's event count once no more arrive (requests cut off by a warm-up's end are written a moment later). */
async function settle(db: pg.Pool, org: number): Promise<number> {
  let last = await countEvents(db, org);
  for (;;) {
    await sleep(300);
    const now = await countEvents(db, org);
    if (now === last) return now;
    last = now;
  }
}
